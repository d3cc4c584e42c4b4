/**
 * The generic HTTPS test server of the product's tests and the bench: a real server on 127.0.0.1 (its
 * own CA) that records every request and answers with the handler a test gives. The emulator's GitHub
 * stand-in is built on the same server, so it lives in the emulator package; tests reach it here.
 */
export { json, startTestServer, testTls, type Handler, type RecordedRequest, type TestServer } from '../../packages/emulator/src/https-server.js';

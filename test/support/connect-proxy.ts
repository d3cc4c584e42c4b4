/**
 * A forward proxy over real sockets, as a corporate one: it answers CONNECT with a tunnel to the host
 * asked for and records each tunnel; with `auth`, a CONNECT without that `Proxy-Authorization` gets 407.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** `host:port` of each tunnel opened, in order. */
  tunnels: string[];
  /** CONNECTs refused for want of credentials. */
  refused: number;
  close(): Promise<void>;
}

export async function startConnectProxy(auth?: { user: string; password: string }): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  const expected = auth ? `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}` : undefined;
  const proxy: ConnectProxy = { url: '', tunnels: [], refused: 0, close: () => Promise.resolve() };
  // A plain request (not CONNECT) is not what an https:// client sends through a proxy.
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (expected && req.headers['proxy-authorization'] !== expected) {
      proxy.refused++;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = [(req.url ?? '').replace(/:\d+$/, ''), Number(/:(\d+)$/.exec(req.url ?? '')?.[1] ?? 443)];
    const upstream = connect(port, host.replace(/^\[|\]$/g, ''), () => {
      proxy.tunnels.push(req.url ?? '');
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

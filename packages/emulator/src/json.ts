/** A JSON object as the client sent it (settings, metadata, configuration): stored and returned as is. */
export type JsonObject = Record<string, unknown>;

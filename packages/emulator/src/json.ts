/** A JSON object as the client sent it (settings, metadata, configuration): stored and returned as is. */
export type JsonObject = Record<string, unknown>;

/** A value read from JSON or YAML, as text: a string as is, another scalar printed, an object or a list as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

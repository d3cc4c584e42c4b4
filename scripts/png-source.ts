/**
 * The page a PNG picture was made from, kept inside it: a `tEXt` chunk with the page's SHA-256, so a test
 * can tell a picture is fresh without a browser (the pixels differ with the machine's fonts; the page does not).
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const KEYWORD = 'datamodel-ci-source';

export const sourceHash = (page: string): string => createHash('sha256').update(page).digest('hex');

/** The PNG's chunks: type, data, and where each starts. */
function chunks(png: Buffer): { type: string; data: Buffer; start: number; end: number }[] {
  if (png.length < 8 || !png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  const out = [];
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    out.push({ type, data: png.subarray(at + 8, at + 8 + length), start: at, end: at + 12 + length });
    at += 12 + length;
  }
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** The PNG with the page's hash after its header (replacing one there is). */
export function withSourceHash(png: Buffer, hash: string): Buffer {
  const list = chunks(png).filter((c) => !(c.type === 'tEXt' && c.data.toString('latin1').startsWith(`${KEYWORD}\0`)));
  const [ihdr, ...rest] = list;
  if (ihdr?.type !== 'IHDR') throw new Error('a PNG without IHDR first');
  const text = chunk('tEXt', Buffer.from(`${KEYWORD}\0${hash}`, 'latin1'));
  return Buffer.concat([SIGNATURE, png.subarray(ihdr.start, ihdr.end), text, ...rest.map((c) => png.subarray(c.start, c.end))]);
}

/** The hash of the page a PNG was made from, if it says. */
export function pngSourceHash(png: Buffer): string | undefined {
  const c = chunks(png).find((x) => x.type === 'tEXt' && x.data.toString('latin1').startsWith(`${KEYWORD}\0`));
  return c?.data.toString('latin1').slice(KEYWORD.length + 1);
}

/** Width and height in pixels (IHDR). */
export function pngSize(png: Buffer): { width: number; height: number } {
  const ihdr = chunks(png)[0]!;
  return { width: ihdr.data.readUInt32BE(0), height: ihdr.data.readUInt32BE(4) };
}

import fs from 'node:fs';

/**
 * Cover art in AAC and ALAC files (session 10, decision 056 amended): the shop's ffmpeg (a
 * 2018 build) drops attached pictures in its MP4 muxer, so the picture is written after it,
 * as iTunes does: an iTunes-style `meta` (handler `mdir`) whose `ilst` holds `covr` > `data`
 * (type 13 JPEG, 14 PNG), inside the movie's `udta`, beside the `meta` ffmpeg wrote for the
 * other tags (keys style, for the ISRC). ffmpeg writes the movie box (`moov`) last, after
 * the audio (`mdat`), so the box can grow in place without moving any sample offset; a file
 * laid out otherwise is refused rather than corrupted.
 */
const HEADER = 8;

function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header.writeUInt32BE(HEADER + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

function fullBox(type: string, payload: Buffer): Buffer {
  return box(type, Buffer.concat([Buffer.alloc(4), payload]));
}

/** The picture's `data` type: 13 for JPEG, 14 for PNG (the two iTunes takes). */
function pictureType(image: Buffer): number {
  if (image.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 13;
  if (image.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 14;
  throw new Error('Cover art must be a JPEG or PNG image.');
}

function coverMeta(image: Buffer): Buffer {
  const dataHeader = Buffer.alloc(8);
  dataHeader.writeUInt32BE(pictureType(image), 0);
  const covr = box('covr', box('data', Buffer.concat([dataHeader, image])));
  // hdlr: pre_defined 0, handler 'mdir', manufacturer 'appl', 8 reserved bytes, an empty name.
  const hdlr = fullBox('hdlr', Buffer.concat([Buffer.alloc(4), Buffer.from('mdirappl', 'latin1'), Buffer.alloc(9)]));
  return fullBox('meta', Buffer.concat([hdlr, box('ilst', covr)]));
}

interface TopBox {
  type: string;
  offset: number;
  size: number;
}

async function topLevelBoxes(handle: fs.promises.FileHandle, fileSize: number): Promise<TopBox[]> {
  const boxes: TopBox[] = [];
  const header = Buffer.alloc(16);
  let offset = 0;
  while (offset < fileSize) {
    await handle.read(header, 0, 16, offset);
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (size === 1) size = Number(header.readBigUInt64BE(8));
    else if (size === 0) size = fileSize - offset;
    if (size < HEADER || offset + size > fileSize) throw new Error(`Unexpected MP4 layout: box ${JSON.stringify(type)} at ${offset}.`);
    boxes.push({ type, offset, size });
    offset += size;
  }
  return boxes;
}

/** Writes `image` (JPEG or PNG) into the MP4/M4A `file` as its cover, in place. */
export async function addMp4Cover(file: string, image: Buffer): Promise<void> {
  const meta = coverMeta(image);
  const handle = await fs.promises.open(file, 'r+');
  try {
    const { size: fileSize } = await handle.stat();
    const boxes = await topLevelBoxes(handle, fileSize);
    const moov = boxes.find((entry) => entry.type === 'moov');
    const mdat = boxes.find((entry) => entry.type === 'mdat');
    if (!moov || !mdat || moov !== boxes.at(-1) || moov.offset < mdat.offset) throw new Error('Unexpected MP4 layout: the movie box is not the last box, after the audio.');
    const movie = Buffer.alloc(moov.size);
    await handle.read(movie, 0, moov.size, moov.offset);
    if (movie.readUInt32BE(0) === 1) throw new Error('Unexpected MP4 layout: a 64-bit movie box.');
    const children: Buffer[] = [];
    let hasUserData = false;
    for (let offset = HEADER; offset < movie.length;) {
      const size = movie.readUInt32BE(offset);
      if (size < HEADER || offset + size > movie.length) throw new Error('Unexpected MP4 layout: a broken box inside the movie box.');
      const child = movie.subarray(offset, offset + size);
      if (child.toString('latin1', 4, 8) === 'udta') {
        hasUserData = true;
        children.push(box('udta', Buffer.concat([child.subarray(HEADER), meta])));
      } else {
        children.push(child);
      }
      offset += size;
    }
    if (!hasUserData) children.push(box('udta', meta));
    const rewritten = box('moov', Buffer.concat(children));
    await handle.truncate(moov.offset);
    await handle.write(rewritten, 0, rewritten.length, moov.offset);
  } finally {
    await handle.close();
  }
}

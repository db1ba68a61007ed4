import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIO_FORMATS, checkMaster, encode, EncoderError, ffmpegPath, ffprobePath, probeAudio, runTool, sniffMasterFormat } from './encoder.ts';
import { sineWav } from './testing/audio.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'encoder-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const TAGS = { title: 'First Light', artist: 'The Testers', album: 'Sine Waves', trackNumber: 2, trackCount: 5, isrc: 'USSFR2600001' };

describe('masters are checked by their content', () => {
  it('accepts a real WAV, whatever its name', async () => {
    const wav = sineWav(1.5);
    const file = write('master.txt', wav);
    const checked = await checkMaster(file, wav.subarray(0, 64));
    expect(checked?.format).toBe('wav');
    expect(checked?.probe.codec).toBe('pcm_s16le');
    expect(checked?.probe.durationSeconds).toBeCloseTo(1.5, 1);
  });

  it.each([
    ['a text file named .wav', Buffer.from('hello, I am not audio at all\n'.repeat(20))],
    ['a WAV header with nothing after it', sineWav(1).subarray(0, 44)],
    ['a FLAC signature with garbage after it', Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(256, 9)])],
  ])('refuses %s', async (_name, bytes) => {
    const file = write(`refused-${Math.random()}.wav`, bytes);
    expect(await checkMaster(file, bytes.subarray(0, 64))).toBeUndefined();
  });

  it('refuses a header that declares audio the file does not hold (issue 40 item 5)', async () => {
    // 2 KB declaring 1 Hz: ffprobe reads 1,000 seconds from it.
    const slow = sineWav(0.05, 440, 8_000);
    slow.writeUInt32LE(1, 24);
    slow.writeUInt32LE(1 * 2 * 2, 28);
    // A real second, but its data chunk declares 4 GB.
    const huge = sineWav(1);
    huge.writeUInt32LE(0xfffffff0, 40);
    huge.writeUInt32LE(0xfffffff0, 4);
    // Nine channels, and a rate above any recording's.
    const manyChannels = sineWav(0.5);
    manyChannels.writeUInt16LE(9, 22);
    const fast = sineWav(0.5);
    fast.writeUInt32LE(768_000, 24);
    for (const [name, bytes] of [
      ['1 Hz', slow],
      ['a 4 GB data chunk', huge],
      ['9 channels', manyChannels],
      ['768 kHz', fast],
    ] as const) {
      const file = write(`declared-${name.replaceAll(' ', '-')}.wav`, bytes);
      expect(await checkMaster(file, bytes.subarray(0, 64)), name).toBeUndefined();
    }
    // Probed as what they declare (the checks above are ours, not ffprobe's refusals).
    expect((await probeAudio(write('slow-probe.wav', slow))).durationSeconds).toBeGreaterThan(100);
    // A real 96 kHz master is still welcome.
    const fine = sineWav(0.5, 440, 96_000);
    expect((await checkMaster(write('fine-96k.wav', fine), fine.subarray(0, 64)))?.probe.sampleRate).toBe(96_000);
  });

  it('knows the three lossless containers by their magic numbers', () => {
    expect(sniffMasterFormat(Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1'))).toBe('wav');
    expect(sniffMasterFormat(Buffer.from('FORM\0\0\0\0AIFFCOMM', 'latin1'))).toBe('aiff');
    expect(sniffMasterFormat(Buffer.from('fLaC\0\0\0\x22', 'latin1'))).toBe('flac');
    expect(sniffMasterFormat(Buffer.from('ID3\x04\0\0\0\0', 'latin1'))).toBeUndefined();
  });
});

describe('encoding', () => {
  it('makes every format, each decodable, with its tags', async () => {
    const master = write('encode.wav', sineWav(3));
    const expected = { 'mp3-320': 'mp3', 'mp3-v0': 'mp3', aac: 'aac', flac: 'flac', alac: 'alac', preview: 'mp3' } as const;
    for (const format of AUDIO_FORMATS) {
      const output = path.join(dir, `out-${format}.${format === 'aac' || format === 'alac' ? 'm4a' : format === 'flac' ? 'flac' : 'mp3'}`);
      await encode({ master, output, format, tags: TAGS, previewSeconds: 1, timeoutMs: 60_000 });
      const probe = await probeAudio(output);
      expect(probe.codec).toBe(expected[format]);
      expect(probe.tags).toMatchObject({ title: 'First Light', artist: 'The Testers', album: 'Sine Waves', track: '2/5' });
      expect(probe.tags.tsrc ?? probe.tags.isrc).toBe('USSFR2600001');
      if (format === 'preview') expect(probe.durationSeconds).toBeCloseTo(1, 0);
      else expect(probe.durationSeconds).toBeCloseTo(3, 0);
      // A full decode, not just a header read.
      await runTool(ffmpegPath(), ['-v', 'error', '-xerror', '-i', output, '-f', 'null', '-'], { timeoutMs: 30_000 });
    }
  });

  it.each(['png', 'jpg'])('embeds the artwork (%s) as an attached picture in MP3, FLAC, AAC and ALAC, keeping the tags', async (kind) => {
    const master = write(`art-${kind}.wav`, sineWav(1));
    const artwork = path.join(dir, `cover.${kind}`);
    await runTool(ffmpegPath(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=red:s=32x32', '-frames:v', '1', artwork], { timeoutMs: 30_000 });
    const codecs = { flac: 'flac', 'mp3-320': 'mp3', aac: 'aac', alac: 'alac' } as const;
    for (const [format, output] of [
      ['flac', path.join(dir, `art-${kind}.flac`)],
      ['mp3-320', path.join(dir, `art-${kind}.mp3`)],
      ['aac', path.join(dir, `art-aac-${kind}.m4a`)],
      ['alac', path.join(dir, `art-alac-${kind}.m4a`)],
    ] as const) {
      await encode({ master, output, format, tags: TAGS, artwork, timeoutMs: 60_000 });
      const out = await runTool(ffprobePath(), ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name:stream_disposition=attached_pic', '-of', 'csv=p=0', output], {
        timeoutMs: 30_000,
      });
      const streams = out.toString().split('\n').filter(Boolean).sort();
      expect(streams, format).toEqual([`${codecs[format]},audio,0`, `${kind === 'png' ? 'png' : 'mjpeg'},video,1`].sort());
      const probe = await probeAudio(output);
      expect(probe.tags).toMatchObject({ title: 'First Light', artist: 'The Testers', track: '2/5' });
      expect(probe.tags.tsrc ?? probe.tags.isrc).toBe('USSFR2600001');
      // Still decodes whole.
      await runTool(ffmpegPath(), ['-v', 'error', '-xerror', '-i', output, '-map', '0:a', '-f', 'null', '-'], { timeoutMs: 30_000 });
    }
  });

  it('stops a run past its time limit and says so', async () => {
    const error = await runTool(ffmpegPath(), ['-v', 'error', '-re', '-f', 'lavfi', '-i', 'sine=duration=60', '-f', 'null', '-'], { timeoutMs: 300 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(EncoderError);
    expect((error as Error).message).toMatch(/took longer than 300 ms/);
  });

  it('reports a failing run with ffmpeg’s own message', async () => {
    const file = write('not-audio.wav', Buffer.from('plain text'));
    const error = await encode({ master: file, output: path.join(dir, 'x.mp3'), format: 'mp3-320', tags: TAGS, timeoutMs: 30_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EncoderError);
    expect((error as Error).message).toMatch(/^ffmpeg failed \(exit \d+\)/);
  });
});

/** A real WAV (16-bit PCM stereo sine) of `seconds`, made in memory: the masters of the tests. */
export function sineWav(seconds: number, frequency = 440, sampleRate = 44_100): Buffer {
  const channels = 2;
  const frames = Math.round(seconds * sampleRate);
  const dataBytes = frames * channels * 2;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write('RIFF', 0, 'latin1');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'latin1');
  wav.write('fmt ', 12, 'latin1');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * channels * 2, 28);
  wav.writeUInt16LE(channels * 2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'latin1');
  wav.writeUInt32LE(dataBytes, 40);
  for (let frame = 0; frame < frames; frame += 1) {
    const sample = Math.round(Math.sin((2 * Math.PI * frequency * frame) / sampleRate) * 12_000);
    for (let channel = 0; channel < channels; channel += 1) wav.writeInt16LE(sample, 44 + (frame * channels + channel) * 2);
  }
  return wav;
}

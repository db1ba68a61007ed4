// Makes the sample album artwork in content/covers: simple geometric SVGs, one per
// sample release, so the gallery has art without shipping anyone's real covers.
import fs from 'node:fs';
import path from 'node:path';

const outDir = path.resolve(import.meta.dirname, '../content/covers');
fs.mkdirSync(outDir, { recursive: true });
const palettes = [
  ['#1b1b2f', '#e43f5a', '#f7d794'],
  ['#0b3d2e', '#3fe0a1', '#f5f5f5'],
  ['#2d1e2f', '#f6a623', '#e8e8e8'],
  ['#101820', '#f2aa4c', '#ffffff'],
  ['#1a1a40', '#7a04eb', '#ff124f'],
  ['#222831', '#00adb5', '#eeeeee'],
  ['#2b2e4a', '#e84545', '#903749'],
  ['#0f0f0f', '#d4af37', '#f1f1f1'],
  ['#14213d', '#fca311', '#e5e5e5'],
  ['#1f2833', '#66fcf1', '#c5c6c7'],
];
palettes.forEach(([bg, accent, ink], i) => {
  const n = i + 1;
  const rings = Array.from(
    { length: 5 },
    (_, k) => `<circle cx="300" cy="300" r="${250 - k * 45}" fill="none" stroke="${k % 2 ? ink : accent}" stroke-width="${6 + k * 2}" opacity="${0.9 - k * 0.12}"/>`,
  ).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600" role="img" aria-label="Sample cover ${n}">
<rect width="600" height="600" fill="${bg}"/>${rings}
<rect x="0" y="470" width="600" height="130" fill="${bg}" opacity="0.85"/>
<text x="30" y="530" font-family="Helvetica, Arial, sans-serif" font-size="40" font-weight="700" fill="${ink}">SAMPLE RELEASE ${String(n).padStart(2, '0')}</text>
<text x="30" y="570" font-family="Helvetica, Arial, sans-serif" font-size="24" fill="${accent}">STREET FLAVOR RECORDS</text>
</svg>
`;
  fs.writeFileSync(path.join(outDir, `cover-${String(n).padStart(2, '0')}.svg`), svg);
});
console.log(`wrote ${palettes.length} covers to ${outDir}`);

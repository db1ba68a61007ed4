import sharp from 'sharp';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { productImagePath } from '@storefront/domain/storage-location.ts';
import type { Seeder } from '../seed/seed.ts';
import { createStorageDeps, objectDownloadUrl, storeImage } from '../storage/storage.service.ts';
import { editProduct, releaseProduct } from './catalog.service.ts';

/**
 * Sample merchandise for a new embedded database: twelve products, each with generated
 * artwork stored through the storage service (so it gets responsive variants).
 */
const SAMPLES: { name: string; kind: string; priceCents: number; colors: [string, string] }[] = [
  { name: 'Logo Tee (sample)', kind: 'TEE', priceCents: 2500, colors: ['#1b1b2f', '#e43f5a'] },
  { name: 'Label Hoodie (sample)', kind: 'HOODIE', priceCents: 5500, colors: ['#0b3d2e', '#3fe0a1'] },
  { name: 'Snapback Cap (sample)', kind: 'CAP', priceCents: 2800, colors: ['#2d1e2f', '#f6a623'] },
  { name: 'Debut Album Vinyl (sample)', kind: 'VINYL', priceCents: 3200, colors: ['#101820', '#f2aa4c'] },
  { name: 'Mixtape Cassette (sample)', kind: 'TAPE', priceCents: 1200, colors: ['#1a1a40', '#ff124f'] },
  { name: 'Tour Poster (sample)', kind: 'POSTER', priceCents: 1800, colors: ['#222831', '#00adb5'] },
  { name: 'Sticker Pack (sample)', kind: 'STICKERS', priceCents: 600, colors: ['#2b2e4a', '#e84545'] },
  { name: 'Tote Bag (sample)', kind: 'TOTE', priceCents: 2000, colors: ['#0f0f0f', '#d4af37'] },
  { name: 'Beanie (sample)', kind: 'BEANIE', priceCents: 2200, colors: ['#14213d', '#fca311'] },
  { name: 'Signed CD (sample)', kind: 'CD', priceCents: 2500, colors: ['#1f2833', '#66fcf1'] },
  { name: 'Enamel Pin (sample)', kind: 'PIN', priceCents: 900, colors: ['#3d0c02', '#ff9e00'] },
  { name: 'Long Sleeve Tee (sample)', kind: 'LONG SLEEVE', priceCents: 3500, colors: ['#23074d', '#cc5333'] },
];

function artwork(kind: string, [background, accent]: [string, string], variant: number): Buffer {
  const shapes =
    variant === 0
      ? `<circle cx="400" cy="360" r="230" fill="${accent}" opacity="0.9"/>`
      : `<rect x="170" y="130" width="460" height="460" rx="40" fill="none" stroke="${accent}" stroke-width="28"/>`;
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800">
<rect width="800" height="800" fill="${background}"/>${shapes}
<text x="400" y="700" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="64" font-weight="700" fill="#ffffff">${kind}</text>
<text x="400" y="760" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="28" fill="${accent}">STREET FLAVOR RECORDS · SAMPLE</text></svg>`);
}

export const productsSeeder: Seeder = {
  name: 'products',
  async run(db, { config }) {
    const storage = createStorageDeps({ db, config });
    let index = 0;
    for (const [position, sample] of SAMPLES.entries()) {
      const images: string[] = [];
      for (const variant of [0, 1]) {
        const png = await sharp(artwork(sample.kind, sample.colors, variant)).png().toBuffer();
        const row = await storeImage(storage, {
          bucket: STORAGE_BUCKET,
          path: productImagePath(Date.UTC(2026, 0, 1) + index, index, `${sample.kind.toLowerCase().replaceAll(' ', '-')}-${variant + 1}.png`),
          bytes: png,
          metadata: {},
          createdBy: null,
        });
        images.push(objectDownloadUrl(row));
        index += 1;
      }
      const description = `Sample product: replace it from the admin pages. ${sample.kind.toLowerCase()} in the label's colours.`;
      const id = await releaseProduct(db, { name: sample.name, description, priceCents: sample.priceCents, images });
      // Newer samples first in the shop, as a label would feature its latest merch.
      await editProduct(db, { id, name: sample.name, description, priceCents: sample.priceCents, images, order: SAMPLES.length - position });
    }
  },
};

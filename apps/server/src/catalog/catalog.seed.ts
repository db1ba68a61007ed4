import sharp from 'sharp';
import type { ProductCategory } from '@storefront/domain/catalog.ts';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { productImagePath } from '@storefront/domain/storage-paths.ts';
import type { Seeder } from '../seed/seed.ts';
import { createStorageDeps, objectDownloadUrl, storeImage } from '../storage/storage.service.ts';
import { editProduct, releaseProduct } from './catalog.service.ts';

/**
 * Demo merchandise for a new embedded database (fictional, written as a label would):
 * twelve products, each with generated
 * artwork stored through the storage service (so it gets responsive variants).
 * A table of data, one record per product: its entries repeat one shape on purpose
 * (`duplicates` lists them as a pair; there is no logic to fold).
 */
const SAMPLES: { name: string; kind: string; category?: ProductCategory; priceCents: number; colors: [string, string]; description: string }[] = [
  {
    name: 'Logo Tee',
    kind: 'TEE',
    priceCents: 2500,
    colors: ['#1b1b2f', '#e43f5a'],
    description: 'Heavyweight black cotton tee with the Street Flavor Records logo printed on the chest. Unisex fit, screen-printed by hand.',
  },
  {
    name: 'Label Hoodie',
    kind: 'HOODIE',
    priceCents: 5500,
    colors: ['#0b3d2e', '#3fe0a1'],
    description: 'Brushed-fleece hoodie in forest green with the Fourth Street skyline embroidered on the back. Built for late nights at the studio.',
  },
  {
    name: 'Snapback Cap',
    kind: 'CAP',
    priceCents: 2800,
    colors: ['#2d1e2f', '#f6a623'],
    description: 'Structured snapback with a gold embroidered SFR monogram and a flat brim. One size fits most.',
  },
  {
    name: 'Corner Store Symphonies Vinyl',
    kind: 'VINYL',
    category: 'music',
    priceCents: 3200,
    colors: ['#101820', '#f2aa4c'],
    description: 'Saint Vinyl\u2019s 1996 debut album on 180-gram vinyl, remastered from the original tapes, with a printed lyric sleeve.',
  },
  {
    name: 'Hot Sauce & Headphones Cassette',
    kind: 'TAPE',
    category: 'music',
    priceCents: 1200,
    colors: ['#1a1a40', '#ff124f'],
    description: 'The 1995 mixtape that named the label, back on cassette for the first time since it was sold outside the Fourth Street record shop.',
  },
  {
    name: 'Block Party Tour Poster',
    kind: 'POSTER',
    priceCents: 1800,
    colors: ['#222831', '#00adb5'],
    description: 'Screen-printed 18 x 24 inch poster from the Block Party Almanac tour, on heavy matte paper. Shipped rolled in a tube.',
  },
  {
    name: 'Sticker Pack',
    kind: 'STICKERS',
    priceCents: 600,
    colors: ['#2b2e4a', '#e84545'],
    description: 'Eight weatherproof vinyl stickers: the label logo, the Lowlight Choir crest and six classic covers.',
  },
  {
    name: 'Record Tote Bag',
    kind: 'TOTE',
    priceCents: 2000,
    colors: ['#0f0f0f', '#d4af37'],
    description: 'Heavy canvas tote sized to carry a stack of twelve-inch records home from the shop.',
  },
  {
    name: 'Winter Beanie',
    kind: 'BEANIE',
    priceCents: 2200,
    colors: ['#14213d', '#fca311'],
    description: 'Ribbed knit beanie in navy with a woven label patch. Warm enough for the Snow on the Subway tour.',
  },
  {
    name: 'Rooftop Radio Signed CD',
    kind: 'CD',
    category: 'music',
    priceCents: 2500,
    colors: ['#1f2833', '#66fcf1'],
    description: 'Mina Castell\u2019s debut album on CD, signed by Mina on the inlay card.',
  },
  {
    name: 'Enamel Pin',
    kind: 'PIN',
    priceCents: 900,
    colors: ['#3d0c02', '#ff9e00'],
    description: 'Hard enamel pin of the label\u2019s turntable logo, with two rubber clutches so it stays put on a jacket.',
  },
  {
    name: 'Long Sleeve Tee',
    kind: 'LONG SLEEVE',
    priceCents: 3500,
    colors: ['#23074d', '#cc5333'],
    description: 'Long sleeve tee with the thirty-year timeline of the label printed down the arm.',
  },
];

function artwork(kind: string, [background, accent]: [string, string], variant: number): Buffer {
  const shapes =
    variant === 0
      ? `<circle cx="400" cy="360" r="230" fill="${accent}" opacity="0.9"/>`
      : `<rect x="170" y="130" width="460" height="460" rx="40" fill="none" stroke="${accent}" stroke-width="28"/>`;
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800">
<rect width="800" height="800" fill="${background}"/>${shapes}
<text x="400" y="700" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="64" font-weight="700" fill="#ffffff">${kind}</text>
<text x="400" y="760" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="28" fill="${accent}">STREET FLAVOR RECORDS</text></svg>`);
}

export const productsSeeder: Seeder = {
  name: 'products',
  async run(db, { config }) {
    const storage = createStorageDeps({ db, config });
    let index = 0;
    for (const [position, sample] of SAMPLES.entries()) {
      const images: string[] = [];
      for (const variant of [0, 1]) {
        const png = await sharp(artwork(sample.kind, sample.colors, variant))
          .png()
          .toBuffer();
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
      const { description, category = 'merch' } = sample;
      const id = await releaseProduct(db, { name: sample.name, description, priceCents: sample.priceCents, images, category });
      // Newer samples first in the shop, as a label would feature its latest merch.
      await editProduct(db, { id, name: sample.name, description, priceCents: sample.priceCents, images, order: SAMPLES.length - position });
    }
  },
};

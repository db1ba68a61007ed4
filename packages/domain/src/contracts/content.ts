import { z } from 'zod';
import { listQuerySchema } from '../field-path.ts';
import { defineContract } from './define.ts';

/** One entry of the label's history (spec section 2). */
export const timelineEntryOutput = z.object({
  id: z.number(),
  releasedOn: z.string(),
  year: z.number(),
  title: z.string(),
  format: z.string(),
  note: z.string(),
});

export const contentContracts = {
  listHistory: defineContract({
    access: 'public',
    // `{"data": null}` (listHistory() in the SDKs) is the default query.
    input: listQuerySchema.nullable().transform((query) => query ?? listQuerySchema.parse({})),
    output: z.object({ entries: z.array(timelineEntryOutput) }),
  }),
};

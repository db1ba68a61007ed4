import { z } from 'zod';
import { editProductInput, releaseProductInput } from '../catalog-schemas.ts';
import { defineContract, okOutput } from './define.ts';

/** The spec's two admin functions (section 7); the server decides who is an admin. */
export const catalogContracts = {
  releaseBizarreProduct: defineContract({
    access: 'admin',
    input: releaseProductInput,
    output: z.object({ ok: z.literal(true), id: z.string() }),
  }),
  editBizarreProduct: defineContract({ access: 'admin', input: editProductInput, output: okOutput }),
};

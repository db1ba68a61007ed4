import { defineFunction } from '../functions/registry.ts';
import { deleteSavedAddress, listSavedAddresses } from './addresses.service.ts';

export const addressFunctions = [
  defineFunction('listSavedAddresses', async (_input, { db, caller }) => listSavedAddresses(db, caller.userId)),
  defineFunction('deleteSavedAddress', async ({ id }, { db, caller }) => deleteSavedAddress(db, caller.userId, id)),
];

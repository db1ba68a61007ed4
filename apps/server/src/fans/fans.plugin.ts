import { defineArea } from '../http/area.ts';
import { fanFunctions } from './fans.functions.ts';

/**
 * The fans (issue 37, decision 074): follows of the label and of roster artists, made from the
 * release, product and artist pages, /account and a purchase with its box ticked.
 */
export const fansArea = defineArea('fans', async () => ({ functions: fanFunctions() }));

import { defineArea } from '../http/area.ts';
import { walletFunctions } from './wallet.functions.ts';

/** Store credit: balance, history and top-ups. */
export const walletArea = defineArea('wallet', async () => ({ functions: walletFunctions }));

import { publicUrl } from '../accounts/auth.ts';
import { defineArea } from '../http/area.ts';
import { releaseDuePreorders } from './preorders.flow.ts';

/** Preorders (issue 27, decision 054): the release job, once a minute across all processes. */
export const preordersArea = defineArea('preorders', async (_app, { db, jobs, config, every }) => {
  const deps = { db, jobs, publicUrl: publicUrl(config), timeZone: config.LABEL_TIME_ZONE };
  await every('preorder-release', '* * * * *', () => releaseDuePreorders(deps));
});

import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './processes.ts';

/**
 * The shipped nginx files (deploy/nginx-site.conf, the site; deploy/nginx.conf, the whole
 * file that includes it) with a test run's ports and paths. Every line replaced must be
 * there: a change to the shipped files that a test no longer follows fails loudly.
 */
export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
export const SITE_FILE = path.join(repoRoot, 'deploy/nginx-site.conf');
export const WHOLE_FILE = path.join(repoRoot, 'deploy/nginx.conf');
/** Where the guide installs the site file; the whole file includes it from there. */
export const INSTALLED_SITE = '/etc/nginx/sites-available/storefront';

export interface NginxValues {
  http: number;
  https: number;
  upstreams: number[];
  /** The run's folder: logs, pid, temp files. */
  dir: string;
  cert: string;
  key: string;
}

function replacer(file: string) {
  let text = fs.readFileSync(file, 'utf8');
  const name = path.relative(repoRoot, file);
  return {
    replace(from: string | RegExp, to: string, all = false) {
      const next = all && typeof from === 'string' ? text.replaceAll(from, to) : text.replace(from, to);
      if (next === text) throw new Error(`${name} no longer contains ${String(from)}: update apps/server/test/reliability/nginx-config.ts`);
      text = next;
    },
    text: () => text,
  };
}

/** The site file with this run's ports, certificate and access log (`<dir>/access.log`). */
export function templateSiteFile(values: NginxValues): string {
  const site = replacer(SITE_FILE);
  site.replace('access_log /var/log/nginx/storefront.access.log storefront;', `access_log ${values.dir}/access.log storefront;`, true);
  site.replace('server 127.0.0.1:3000 ', `server 127.0.0.1:${values.upstreams[0]} `);
  site.replace('server 127.0.0.1:3001 ', `server 127.0.0.1:${values.upstreams[1] ?? values.upstreams[0]} `);
  site.replace('listen 80;', `listen 127.0.0.1:${values.http};`);
  site.replace('listen 443 ssl http2;', `listen 127.0.0.1:${values.https} ssl http2;`);
  site.replace('/etc/ssl/certs/shop.example.com.pem', values.cert);
  site.replace('/etc/ssl/private/shop.example.com.key', values.key);
  return site.text();
}

/**
 * Writes the whole file and the site file into `dir` (as nginx.conf and site.conf), run as
 * an unprivileged nginx: no `user`, pid, logs and request bodies under `dir`. Returns the
 * whole file's path, for `nginx -p dir -c <it>`.
 */
export function writeWholeConfig(values: NginxValues): string {
  const sitePath = path.join(values.dir, 'site.conf');
  fs.writeFileSync(sitePath, templateSiteFile(values));
  const whole = replacer(WHOLE_FILE);
  whole.replace(/^user www-data;$/m, '');
  whole.replace('pid /run/nginx.pid;', `pid ${values.dir}/nginx.pid;`);
  whole.replace('error_log /var/log/nginx/error.log warn;', `error_log ${values.dir}/error.log warn;`);
  whole.replace(`include ${INSTALLED_SITE};`, `include ${sitePath};`);
  // Debian's nginx keeps request bodies under /var/lib/nginx: here, under the test's folder.
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${values.dir}/${kind};`).join('\n');
  whole.replace(/^http \{$/m, `http {\n${temp}`);
  const confPath = path.join(values.dir, 'nginx.conf');
  fs.writeFileSync(confPath, whole.text());
  return confPath;
}

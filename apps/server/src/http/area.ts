import type { FastifyInstance } from 'fastify';

/**
 * One area of the shop (a folder under src/): it registers its routes and jobs on the app
 * and returns what the app serves of it (its callable functions). Like a Fastify plugin, it
 * declares the options it needs and app.ts hands them over (issue 34, decision 065): the
 * shell knows no area, so nothing here names one.
 */
export interface Area<Name extends string = string, Options = never, Output = unknown> {
  name: Name;
  register(app: FastifyInstance, options: Options): Promise<Output>;
}

export function defineArea<Name extends string, Options, Output>(name: Name, register: (app: FastifyInstance, options: Options) => Promise<Output>): Area<Name, Options, Output> {
  return { name, register };
}

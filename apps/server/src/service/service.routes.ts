import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { verifyServiceToken } from './service.tokens.ts';
import { applyServiceWrite, SERVICE_WRITES, type ServiceWriteKind } from './service.writes.ts';

/** `/api/service/<kind>`: authenticated by service tokens (npm run cli -- create-service-token). */
export async function serviceRoutes(app: FastifyInstance, options: { db: Db }) {
  const { db } = options;
  const authenticate = async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = await verifyServiceToken(db, header?.startsWith('Bearer ') ? header.slice(7) : undefined);
    if (!token) throw new AppError('unauthenticated', 'A valid service token is required.');
    return token;
  };

  for (const kind of Object.keys(SERVICE_WRITES) as ServiceWriteKind[]) {
    app.post(`/api/service/${kind}`, async (request) => {
      const token = await authenticate(request);
      return applyServiceWrite(db, token.id, kind, request.body);
    });
  }
}

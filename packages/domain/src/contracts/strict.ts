import { z } from 'zod';

/**
 * A contract's output as a validating client reads it (issue 40 item 11): every object closed,
 * as the OpenAPI document publishes it (`additionalProperties: false`), at any depth. zod's
 * objects strip unknown keys when they parse; a generated client refuses them instead, so
 * tests parse answers with this.
 */
export function strictly(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: StrictDef } })._zod.def;
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(Object.entries(def.shape ?? {}).map(([key, value]) => [key, strictly(value)]));
      // An object with a catchall (z.looseObject, z.record-like) stays as open as it was published.
      return def.catchall ? z.object(shape).catchall(def.catchall) : z.strictObject(shape);
    }
    case 'array':
      return z.array(strictly(def.element!));
    case 'optional':
      return strictly(def.innerType!).optional();
    case 'nullable':
      return strictly(def.innerType!).nullable();
    case 'default':
    case 'prefault':
      // An answer's default is filled by the server before it is sent: the field may be absent only where the schema says optional.
      return strictly(def.innerType!).optional();
    case 'union':
      return z.union(def.options!.map(strictly) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    case 'record':
      return z.record(def.keyType as z.ZodString, strictly(def.valueType!));
    case 'readonly':
      return strictly(def.innerType!);
    default:
      return schema;
  }
}

interface StrictDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
}

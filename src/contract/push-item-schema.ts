// The schema of a record pushed to the park edition (an item of /system/push/records), derived from the
// resource's add schema in the document: every field, the server-kept ones, version and deleted.
import type { OpenApiDocument } from './openapi-document.ts'

/**
 * A pushed record (park edition, /system/push/records): every field of the resource, the server-kept
 * ones, version, deleted. Records the service writes itself (alarms) are never deleted: `deleted`
 * is then false, or the item is refused.
 */
export function pushItemSchema(document: OpenApiDocument, schemaName: string, options: { deletable: boolean }): Record<string, unknown> {
  const add = document.components.schemas[schemaName]
  const text = { type: 'string', maxLength: 128 }
  const instant = { $ref: '#/components/schemas/Instant' }
  return {
    type: 'object',
    additionalProperties: false,
    required: [...(add.required ?? []), 'companyCode', 'createTime', 'updateTime', 'createBy', 'updateBy', 'version', 'deleted'],
    properties: {
      ...add.properties,
      companyCode: { type: 'string', pattern: '^[0-9]{9}$' },
      createTime: instant,
      updateTime: instant,
      createBy: text,
      updateBy: text,
      version: { type: 'integer', minimum: 1 },
      deleted: options.deletable ? { type: 'boolean' } : { type: 'boolean', const: false },
    },
    components: document.components,
  }
}

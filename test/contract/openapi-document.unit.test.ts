// withoutDocumentation: the document as the router takes it, without descriptions, summaries and
// examples; names, data and what OpenAPI requires stay.
import t from 'tap'
import { listOperations, loadOpenApi, type OpenApiDocument, withoutDocumentation } from '../../src/contract/openapi-document.ts'

const sample = {
  openapi: '3.1.0',
  info: { title: 't', version: '1', description: 'about' },
  paths: {
    '/a/add': {
      post: {
        operationId: 'aAdd',
        summary: 'add',
        description: 'adds',
        'x-roles': [{ description: 'an extension is data' }],
        parameters: [{ name: 'description', in: 'header', description: 'a header named description', schema: { type: 'string' } }],
        requestBody: { description: 'body', content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } },
        responses: {
          '200': { description: 'required by OpenAPI', content: { 'application/json': { examples: { one: {} }, schema: {} } } },
        },
      },
    },
  },
  components: {
    schemas: {
      A: {
        type: 'object',
        description: 'a record',
        examples: [{ description: 'x' }],
        required: ['description'],
        properties: {
          description: { type: 'string', description: 'a field called description', example: 'text' },
          kind: { enum: [{ summary: 'data' }], default: { description: 'data' } },
        },
      },
    },
  },
} as unknown as OpenApiDocument

t.test('documentation goes; names, data, extensions and a response description stay', async (t) => {
  t.same(withoutDocumentation(sample), {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/a/add': {
        post: {
          operationId: 'aAdd',
          'x-roles': [{ description: 'an extension is data' }],
          parameters: [{ name: 'description', in: 'header', schema: { type: 'string' } }],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/A' } } } },
          responses: { '200': { description: 'required by OpenAPI', content: { 'application/json': { schema: {} } } } },
        },
      },
    },
    components: {
      schemas: {
        A: {
          type: 'object',
          required: ['description'],
          properties: { description: { type: 'string' }, kind: { enum: [{ summary: 'data' }], default: { description: 'data' } } },
        },
      },
    },
  })
})

t.test("the service's document keeps every path, operation and schema, a third of its size", async (t) => {
  const { document } = loadOpenApi()
  const stripped = withoutDocumentation(document)
  t.same(
    listOperations(stripped).map(({ operationId, path }) => [operationId, path]),
    listOperations(document).map(({ operationId, path }) => [operationId, path]),
  )
  t.same(Object.keys(stripped.components.schemas), Object.keys(document.components.schemas))
  t.ok(JSON.stringify(stripped).length < JSON.stringify(document).length / 2)
  t.notOk(Object.isFrozen(stripped), 'a copy the router may change')
})

// The SDK package is versioned with the API it types: sdk/package.json's version is the OpenAPI
// document's info.version, and packing (`npm pack` in sdk/, `npm run sdk:pack`) refuses when they differ.
import t from 'tap'
import { loadOpenApi } from '../../src/contract/openapi-document.ts'
import { readSdkManifest } from '../../scripts/sdk/build.ts'

t.test("the SDK package's version is the document's info.version", async (t) => {
  t.equal(readSdkManifest().version, loadOpenApi().document.info.version)
})

// Unit tier (no database): the environment `npm start` and the bench run an edition in
// (scripts/dev/editions.ts): glibc malloc's settings, which keep a busy edition under 200 MB, and
// Node's compile cache, on before the first module.
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { mainEnv } from '../../scripts/dev/editions.ts'

t.test("an edition's environment sets malloc's arenas and mapping threshold, Node's compile cache, and keeps the rest", async (t) => {
  const env = mainEnv({ EDITION: 'park', PORT: '3100' })
  t.equal(env.MALLOC_ARENA_MAX, '2')
  t.equal(env.MALLOC_MMAP_THRESHOLD_, '1048576')
  // The directory src/main.ts turns on (module.enableCompileCache's default): one cache either way.
  t.equal(env.NODE_COMPILE_CACHE, path.join(os.tmpdir(), 'node-compile-cache'))
  t.equal(env.EDITION, 'park')
  t.equal(env.PORT, '3100')
})

t.test('a setting already in the environment wins', async (t) => {
  const env = mainEnv({ MALLOC_ARENA_MAX: '8', MALLOC_MMAP_THRESHOLD_: '131072', NODE_COMPILE_CACHE: '/var/cache/safety' })
  t.equal(env.MALLOC_ARENA_MAX, '8')
  t.equal(env.MALLOC_MMAP_THRESHOLD_, '131072')
  t.equal(env.NODE_COMPILE_CACHE, '/var/cache/safety')
})

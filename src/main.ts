// The program: `node src/main.ts` starts one edition (edition.ts). Before anything else is loaded,
// it turns on Node's compile cache: the TypeScript stripped and the code compiled on a first start
// are kept in a directory (NODE_COMPILE_CACHE, by default node-compile-cache in the system's
// temporary directory) and reused by the next start of the same files. Without a usable directory
// (read-only, another user's) the cache is off and the start goes on as without it. `npm start` and
// the bench set NODE_COMPILE_CACHE to that directory, so that this file too comes from the cache
// (scripts/dev/editions.ts): loading it stripped would load Node's TypeScript stripper.
import { enableCompileCache, flushCompileCache } from 'node:module'

enableCompileCache()
await import('./edition.ts')
// Written once the edition listens, not only at exit: an edition killed later leaves it too.
flushCompileCache()

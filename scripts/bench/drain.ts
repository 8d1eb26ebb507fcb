import type { Databases } from './database.ts'
export async function drainGroup(_d: Databases): Promise<void> {}

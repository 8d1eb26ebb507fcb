import type { Databases } from './database.ts'
export async function readGroups(_d: Databases): Promise<void> {}

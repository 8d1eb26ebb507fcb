// One pg pool per process, shared by the Prisma client (through its driver adapter) and by the
// resource store, whose generated SQL goes to the pool directly: Prisma's raw-query path adds CPU
// to every statement, a large share of the write path's. The pools and their helpers are in
// pg-pool.ts.

import { PrismaPg } from '@prisma/adapter-pg'
import prismaClientPackage from '@prisma/client'
import type pg from 'pg'
import { type DatabaseOptions, openPool } from './pg-pool.ts'

export * from './pg-pool.ts'

const { PrismaClient } = prismaClientPackage
export type Prisma = InstanceType<typeof PrismaClient>

export interface Database {
  pool: pg.Pool
  prisma: Prisma
  close(): Promise<void>
}

export function openDatabase(connectionString: string, options: DatabaseOptions = {}): Database {
  const pool = openPool(connectionString, options)
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) })
  return {
    pool,
    prisma,
    async close() {
      await prisma.$disconnect()
      await pool.end()
    },
  }
}

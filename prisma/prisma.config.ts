// Prisma CLI configuration. Only `prisma generate` is used (migrations are SQL files applied by
// src/store/migrate.ts). Declaring the JS engine with a driver adapter is what lets the CLI run
// without fetching native engines from outside the npm registry; the adapter is never connected.
import { defineConfig } from 'prisma/config'
import { PrismaPg } from '@prisma/adapter-pg'

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'schema.prisma',
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' }),
})

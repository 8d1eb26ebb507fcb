// The composition root: the edition configured (EDITION), composed over the shared skeleton.
import { type App, type AppOptions, buildEdition } from './editions/shared.ts'
import { enterpriseEdition } from './editions/enterprise.ts'
import { parkEdition } from './editions/park.ts'

export type { App, AppOptions }

export function buildApp(options: AppOptions): Promise<App> {
  return buildEdition(options, options.config.edition === 'park' ? parkEdition : enterpriseEdition)
}

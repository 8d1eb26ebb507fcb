import t from 'tap'
import { startService } from '../helpers/service.ts'
const service = await startService(t)
const token = await service.login()
t.test('x', async (t) => {
  t.ok(token)
})

// The webhook endpoint of the `events` group, in its own process so that the load generator does
// not share its event loop: it answers 204 at once to every POST and counts the distinct
// `webhook-id`s received, with the time of the first and the last delivery. Over IPC: 'reset'
// forgets them, 'count' answers {count, first, last} (ms since the epoch), 'stop' closes it. Once
// listening it sends {url}.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

let ids = new Set<string>()
let first = 0
let last = 0
const server = createServer((request, response) => {
  const id = request.headers['webhook-id']
  request.resume()
  request.on('end', () => {
    const now = Date.now()
    if (typeof id === 'string' && !ids.has(id)) {
      ids.add(id)
      first ||= now
      last = now
    }
    response.statusCode = 204
    response.end()
  })
})

if (!process.send) throw new Error('usage: started by scripts/bench/events.ts over IPC')
server.listen(0, '127.0.0.1', () => {
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` })
})
process.on('message', (message) => {
  if (message === 'reset') {
    ids = new Set()
    first = 0
    last = 0
  } else if (message === 'count') process.send!({ count: ids.size, first, last })
  else if (message === 'stop') {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
})
process.on('disconnect', () => process.exit(0))
process.on('SIGINT', () => {}) // a terminal Ctrl+C: the parent decides when this stops

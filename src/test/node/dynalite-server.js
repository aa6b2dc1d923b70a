'use strict'
// Launcher for dynalite used by the Java test infrastructure (io.kcdelta.it.infra.Dynalite).
// Why not dynalite's CLI: it turns --port 0 into 4567 and binds all interfaces; tests need an
// ephemeral loopback port and must not leave a server behind when the JVM dies.
//
// Usage: node dynalite-server.js [--port N] [--path DIR]
// Prints "DYNALITE_PORT=<port>" once listening; exits when its stdin closes.
const dynalite = require('dynalite')

const args = process.argv.slice(2)
let port = 0
let dataDir
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--port') port = parseInt(args[++i], 10)
  else if (args[i] === '--path') dataDir = args[++i]
  else { console.error('unknown argument: ' + args[i]); process.exit(2) }
}

// Tables become ACTIVE at once: tests should not wait half a second per create/delete.
const opts = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }
if (dataDir) opts.path = dataDir

const server = dynalite(opts)
server.on('error', (err) => { console.error('dynalite failed: ' + err.message); process.exit(1) })
server.listen(port, '127.0.0.1', () => {
  console.log('DYNALITE_PORT=' + server.address().port)
})

// The JVM holds our stdin; EOF means it is gone (stopped us, or died), so no orphan survives it.
function shutdown () {
  server.close(() => process.exit(0))
  // LevelDB flush on close is quick; do not hang forever on keep-alive sockets.
  setTimeout(() => process.exit(0), 2000).unref()
}
process.stdin.on('end', shutdown)
process.stdin.on('close', shutdown)
process.stdin.resume()
process.on('SIGTERM', shutdown)

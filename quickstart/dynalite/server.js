// DynamoDB API on 127.0.0.1 for bin/quickstart. Usage: node server.js PORT [DATA_DIR]
// Prints "dynalite listening on PORT" when ready; exits when stdin closes (so it never outlives the
// script that started it) or on SIGTERM/SIGINT.
const port = parseInt(process.argv[2] || '0', 10);
const dir = process.argv[3];
const opts = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
if (dir) opts.path = dir;
const server = require('dynalite')(opts);
server.listen(port, '127.0.0.1', (err) => {
  if (err) { console.error(err); process.exit(1); }
  console.log('dynalite listening on ' + server.address().port);
});
const stop = () => server.close(() => process.exit(0));
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

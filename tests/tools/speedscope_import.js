// speedscope_import.js -- feed a speedscope file to speedscope's own importer.
//
//   node speedscope_import.js PACKAGE_DIR FILE NPROFILES
//
// PACKAGE_DIR is speedscope's npm package (its dist/release holds the
// browser bundle; the package exports no API).  The bundle is one
// function; the function its file loader calls for a file with speedscope's
// $schema (importSpeedscopeProfiles in speedscope's source) is found by
// that call site, exposed, and the bundle run with a minimal window stub
// (the UI's start-up fails without a DOM, after the importer is defined).
// The importer builds every profile as the viewer would: evented profiles
// through its call-tree builder, which throws on a close that does not
// match the open frame or on time going back, sampled ones checking
// samples and weights have equal lengths.  Exit 0 when FILE imports into
// NPROFILES profiles each with a positive total weight.
'use strict'
const fs = require('fs')
const path = require('path')
const vm = require('vm')

const [pkg, file, want] = process.argv.slice(2)
const dir = path.join(pkg, 'dist', 'release')
const js = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f))
if (!js) {
  console.error(`speedscope_import: no speedscope-*.js in ${dir}`)
  process.exit(2)
}
let src = fs.readFileSync(path.join(dir, js), 'utf8')
const call = /"Importing as speedscope json file"\),(\w+)\(/.exec(src)
if (!call) {
  console.error('speedscope_import: the importer was not found in the bundle (a new speedscope?)')
  process.exit(2)
}
// function declarations are hoisted: expose the importer on entry
const open = src.indexOf('{') + 1
src = src.slice(0, open) + `globalThis.__import = ${call[1]};` + src.slice(open)

const noop = () => {}
const element = () => new Proxy(noop, {get: (t, k) => (k === Symbol.toPrimitive ? () => '' : element())})
const sandbox = {console: {log: noop, warn: noop, error: noop, info: noop}, setTimeout, clearTimeout}
sandbox.window = sandbox
sandbox.self = sandbox
sandbox.document = element()
sandbox.navigator = {userAgent: 'node', platform: 'node'}
sandbox.location = {href: 'file:///', hash: '', search: ''}
vm.createContext(sandbox)
try {
  vm.runInContext(src, sandbox)
} catch (e) {
  // the UI needs a real DOM; only the importer matters here
}
if (typeof sandbox.__import !== 'function') {
  console.error('speedscope_import: the importer could not be exposed')
  process.exit(2)
}
const json = JSON.parse(fs.readFileSync(file, 'utf8'))
let got
try {
  got = sandbox.__import(json)
} catch (e) {
  console.error(`speedscope_import: speedscope's importer refused ${file}: ${e.message}`)
  process.exit(1)
}
const profiles = got.profiles
if (profiles.length !== Number(want)) {
  console.error(`speedscope_import: ${profiles.length} profiles, expected ${want}`)
  process.exit(1)
}
for (const p of profiles) {
  const w = p.getTotalWeight()
  if (!(w > 0)) {
    console.error(`speedscope_import: profile "${p.getName()}" weighs ${w}`)
    process.exit(1)
  }
  console.log(`speedscope_import: "${p.getName()}" imported, total weight ${w}`)
}
// the bundle's UI start-up left promises that would fail without a DOM
process.exit(0)

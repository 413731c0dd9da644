// Mocha's settings. `npm test` runs every test file; `npx mocha dist/test/a/b.test.js …` runs only the
// files named (a config `spec` would otherwise be added to them and run the whole suite).
const named = process.argv.slice(2).some((arg) => /\.test\.js$/.test(arg));

module.exports = {
  ...(named ? {} : { spec: ['dist/test/**/*.test.js'] }),
  require: ['dist/test/setup.js'],
  timeout: 20000,
  exit: true,
  reporter: 'dist/test/reporter.js',
};

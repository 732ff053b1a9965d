// Bundles the app, the signing page and the test wallet into dist/ with esbuild (ES modules,
// minified, for current browsers) and prints their sizes.
import { build } from "esbuild";
import { statSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";

const entries = { app: "src/app.ts", sign: "src/sign.ts", testwallet: "src/testwallet.ts" };
await build({
  entryPoints: entries,
  outdir: "dist",
  bundle: true,
  format: "esm",
  minify: true,
  sourcemap: true,
  target: ["chrome120", "firefox120", "safari17"],
  logLevel: "warning",
});
for (const name of Object.keys(entries)) {
  const file = `dist/${name}.js`;
  console.log(`${file}: ${statSync(file).size} bytes, ${gzipSync(readFileSync(file)).length} gzipped`);
}

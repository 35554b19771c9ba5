/**
 * The `ma2h` command's entry point (the package's `bin`; the build adds the shebang). All the work is
 * in ./cli/main.ts; this only runs it and sets the exit code.
 */
import { main } from "./cli/main";

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // Should anything still hold the event loop (a pooled socket), leave anyway; unref'd, so a loop
  // that empties by itself exits at once.
  setTimeout(() => process.exit(code), 1000).unref();
});

// The interop clients' test harness: named checks, counted, with the
// failure's stack; `finish()` prints the tally and sets the exit code.
let passed = 0;
let failed = 0;

export async function check(name, body) {
  try {
    await body();
    passed++;
    console.log(`ok - ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${name}\n  ${err?.stack ?? err}`);
  }
}

export function finish() {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

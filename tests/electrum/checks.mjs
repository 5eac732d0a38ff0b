// The Electrum tests' checks: check(cond, what), eq(got, want, what) (as
// JSON text), and the tally printed by done(), which exits 1 on a failure.
export const tally = { passed: 0, failed: 0 };
export function check(cond, what) {
  if (cond) tally.passed++;
  else { tally.failed++; console.error('FAIL', what); }
}
export function eq(a, b, what) {
  const ja = JSON.stringify(a), jb = JSON.stringify(b);
  check(ja === jb, `${what}: got ${ja?.slice(0, 400)} want ${jb?.slice(0, 400)}`);
}
export function done() {
  console.log(`${tally.passed} passed, ${tally.failed} failed`);
  process.exit(tally.failed ? 1 : 0);
}

// SPDX-License-Identifier: Apache-2.0
// The peer of `box bench pdp`: Cedar's own engine (@cedar-policy/cedar-wasm)
// deciding the same policies and requests, printed as one JSON line.
//
// usage: node cedar_bench.mjs [--policy F] [--requests F] [--schema F]
//                             [--seconds S] [--ours VERDICTS]
// VERDICTS is one letter per request, A (allow) or D (deny), in file order:
// Box's in-process answers, which every Cedar verdict must equal.
// Without --schema, pdp/schema/actions.cedarschema of this checkout is used.

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const opts = {
  policy: join(here, "policy.dw"),
  requests: join(here, "requests.json"),
  schema: join(here, "..", "..", "pdp", "schema", "actions.cedarschema"),
  seconds: 2,
  ours: null,
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, "");
  if (!(k in opts) || i + 1 >= process.argv.length) {
    console.error(`cedar_bench: unknown or incomplete option ${process.argv[i]}`);
    process.exit(2);
  }
  opts[k] = k === "seconds" ? Number(process.argv[i + 1]) : process.argv[i + 1];
}

let cedar;
try {
  cedar = await import("@cedar-policy/cedar-wasm/nodejs");
} catch (e) {
  console.error("cedar_bench: @cedar-policy/cedar-wasm is not installed; run `npm --prefix bench/pdp install`");
  process.exit(3);
}

const policyText = readFileSync(opts.policy, "utf8");
const schemaText = readFileSync(opts.schema, "utf8");
const requests = JSON.parse(readFileSync(opts.requests, "utf8"));

const uid = (type, id) => ({ type, id });
const calls = requests.map((r) => ({
  principal: uid("Box::Agent", "self"),
  action: uid("Box::Action", r.action),
  resource: uid("Box::Resource", "unused"),
  context: { input: r.input },
}));

function fail(what, ans) {
  console.error(`cedar_bench: ${what}: ${JSON.stringify(ans.errors ?? ans)}`);
  process.exit(1);
}

// The same load Box does: the policy must validate strictly.
const check = cedar.validate({
  schema: schemaText,
  policies: { staticPolicies: policyText },
  validationSettings: { mode: "strict" },
});
if (check.type !== "success") fail("validate", check);
if (check.validationErrors.length > 0)
  fail("policy does not validate", { errors: check.validationErrors });

const pre = cedar.preparsePolicySet("bench", { staticPolicies: policyText });
if (pre.type !== "success") fail("preparsePolicySet", pre);
const pres = cedar.preparseSchema("box", schemaText);
if (pres.type !== "success") fail("preparseSchema", pres);

// isAuthorized parses policies and schema on every call (the stateless API
// the issue names); statefulIsAuthorized reuses the preparsed ones (Cedar's
// fastest path from JS). Both validate the request against the schema, as
// Box's pdp_decide does.
const stateless = calls.map((c) => ({
  ...c,
  schema: schemaText,
  validateRequest: true,
  policies: { staticPolicies: policyText },
  entities: [],
}));
const stateful = calls.map((c) => ({
  ...c,
  preparsedSchemaName: "box",
  validateRequest: true,
  preparsedPolicySetId: "bench",
  entities: [],
}));

function decide(fn, call) {
  const ans = fn(call);
  if (ans.type !== "success") fail("isAuthorized", ans);
  if (ans.response.diagnostics.errors.length > 0)
    fail("evaluation error", { errors: ans.response.diagnostics.errors });
  return ans.response.decision === "allow" ? "A" : "D";
}

// Verdicts first: Cedar against the file's expectations and against Box.
const verdicts = stateful.map((c) => decide(cedar.statefulIsAuthorized, c)).join("");
const again = stateless.map((c) => decide(cedar.isAuthorized, c)).join("");
const expect = requests.map((r) => (r.expect === "allow" ? "A" : "D")).join("");
const mismatches = [];
for (let i = 0; i < requests.length; i++) {
  const want = opts.ours ? opts.ours[i] : expect[i];
  if (verdicts[i] !== want || again[i] !== want || verdicts[i] !== expect[i])
    mismatches.push(i);
}
for (const i of mismatches)
  console.error(
    `cedar_bench: MISMATCH on request ${i} (${requests[i].action} ${requests[i].resource}):` +
      ` cedar ${verdicts[i]}/${again[i]}, box ${opts.ours ? opts.ours[i] : "-"}, expected ${expect[i]}`
  );

// Runs rounds over every request until the time is up; decisions/second.
function rate(fn, list, seconds) {
  for (let w = 0; w < 3; w++) for (const c of list) fn(c); // warm-up
  let n = 0;
  const t0 = process.hrtime.bigint();
  const end = t0 + BigInt(Math.round(seconds * 1e9));
  let now = t0;
  while (now < end) {
    for (const c of list) fn(c);
    n += list.length;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - t0) / 1e9);
}

const statefulRate = rate(cedar.statefulIsAuthorized, stateful, opts.seconds);
const statelessRate = rate(cedar.isAuthorized, stateless, Math.max(opts.seconds / 4, 0.25));

console.log(
  JSON.stringify({
    peer: "cedar-wasm",
    version: cedar.getCedarVersion(),
    node: process.version,
    rules: (policyText.match(/^\s*(permit|forbid)\s*\(/gm) || []).length,
    requests: requests.length,
    stateful_dps: Math.round(statefulRate),
    stateless_dps: Math.round(statelessRate),
    verdicts,
    mismatches: mismatches.length,
  })
);
process.exit(mismatches.length > 0 ? 1 : 0);

// SPDX-License-Identifier: Apache-2.0
// The peer of cedar_diff: Cedar's own engine (@cedar-policy/cedar-wasm,
// the version package-lock.json pins) decides every generated case.
//
// usage: node decide.mjs CASES
// CASES holds one JSON case a line, as cedar_diff writes them:
//   {"i": N, "policies": TEXT, "principal": UID, "action": UID,
//    "resource": UID, "context": {...}, "entities": [...]}
// (values in Cedar's JSON form: {"__entity": …}, {"__extn": …}). Prints
// a first line {"cedar": VERSION}, then one line per case, in order:
//   {"i": N, "decision": "allow"|"deny", "reason": [K…],
//    "errors": [{"p": K, "m": TEXT}…]}
// where K is the policy's position (Cedar names a set's policies policy0,
// policy1… when they come as one text), or {"i": N, "failure": TEXT} when
// Cedar refuses the case (a policy that does not parse, a bad request).
// Exit 77 when the package is not installed, 1 on a bad input line.

import { readFileSync } from "node:fs";

let cedar;
try {
  cedar = await import("@cedar-policy/cedar-wasm/nodejs");
} catch (e) {
  console.error(
    "cedar_diff: @cedar-policy/cedar-wasm is not installed; " +
      "run `npm ci` in tests/cedar_diff"
  );
  process.exit(77);
}

if (process.argv.length !== 3) {
  console.error("usage: node decide.mjs CASES");
  process.exit(2);
}

// "policy12" -> 12; anything else (never expected) -> -1, which no box
// rule has, so the comparer reports it.
function position(id) {
  const m = /^policy([0-9]+)$/.exec(id);
  return m ? Number(m[1]) : -1;
}

function messages(errors) {
  return (errors ?? []).map((e) => e.message ?? JSON.stringify(e)).join("; ");
}

const out = [JSON.stringify({ cedar: cedar.getCedarVersion() })];
const lines = readFileSync(process.argv[2], "utf8").split("\n");
for (const line of lines) {
  if (line === "") continue;
  let c;
  try {
    c = JSON.parse(line);
  } catch (e) {
    console.error(`cedar_diff: bad case line: ${e.message}`);
    process.exit(1);
  }
  const ans = cedar.isAuthorized({
    principal: c.principal,
    action: c.action,
    resource: c.resource,
    context: c.context,
    policies: { staticPolicies: c.policies },
    entities: c.entities,
  });
  if (ans.type !== "success") {
    out.push(JSON.stringify({ i: c.i, failure: messages(ans.errors) }));
    continue;
  }
  const d = ans.response.diagnostics;
  out.push(
    JSON.stringify({
      i: c.i,
      decision: ans.response.decision,
      reason: d.reason.map(position),
      errors: d.errors.map((e) => ({
        p: position(e.policyId),
        m: e.error.message,
      })),
    })
  );
  // Keep memory flat on long runs: flush every few thousand answers.
  if (out.length >= 4096) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
process.stdout.write(out.length ? out.join("\n") + "\n" : "");

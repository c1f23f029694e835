// Validates every GraphQL request body the Digitransit routing provider
// builds (written by transitd-graphql-bodies) against the recorded HSL
// schema with the reference implementation, graphql-js: each selected
// field, argument and variable type must exist there. A control first: a
// misspelt field in the same document must be reported, or the check could
// not fail.
//
//   node validate.mjs SCHEMA.graphqls BODIES_DIR
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { buildSchema, parse, validate } from "graphql";

const [schemaPath, bodiesDir] = process.argv.slice(2);
const schema = buildSchema(readFileSync(schemaPath, "utf8"));
let failures = 0;
let checked = 0;

function check(name, query, expectValid) {
  let errors;
  try {
    errors = validate(schema, parse(query));
  } catch (e) {
    errors = [e];
  }
  const valid = errors.length === 0;
  if (valid !== expectValid) {
    failures++;
    console.error(`FAIL ${name}: expected ${expectValid ? "valid" : "invalid"}`);
    for (const e of errors) console.error(`  ${e.message}`);
  } else {
    console.log(`ok ${name}${valid ? "" : ` (rejected: ${errors[0].message})`}`);
  }
  checked++;
}

const files = readdirSync(bodiesDir).filter((f) => f.endsWith(".json")).sort();
if (files.length < 3) {
  console.error(`expected the 3 request bodies in ${bodiesDir}, found ${files.length}`);
  process.exit(1);
}
for (const file of files) {
  const body = JSON.parse(readFileSync(join(bodiesDir, file), "utf8"));
  check(file, body.query, true);
  // The control: the first selected field of the document, misspelt.
  const misspelt = body.query.replace(/\{\s*(\w+)/, (m, f) => m.replace(f, `${f}Xx`));
  if (misspelt === body.query) {
    failures++;
    console.error(`FAIL ${file}: no field to misspell`);
    continue;
  }
  check(`${file} with a misspelt field`, misspelt, false);
}
console.log(`${checked - failures} passed, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

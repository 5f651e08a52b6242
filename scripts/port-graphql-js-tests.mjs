#!/usr/bin/env node
// Ports graphql-js's validation tests to data: for every `it(...)` of every rule's test file in
// `src/validation/__tests__` (and the SDL cases of `src/type/__tests__/validation-test.ts` that
// build a schema from SDL), the rule, the schema (by SDL), the document and the errors graphql-js
// expects (message and locations). The test files are read, not imported: their TypeScript
// annotations are taken off and the file runs against stand-ins for mocha, the harness and
// graphql-js's builders, which record what each test asks instead of validating it. Nothing of
// graphql-js itself runs.
//
// usage: node scripts/port-graphql-js-tests.mjs <graphql-js checkout> <output folder>
//   writes <output>/validation.json and <output>/schema-validation.json; prints the counts.
// The output is what Tools/Tests/CodegenKitTests/GraphQLJSValidationTests reads (Fixtures/ThirdParty/graphql-js).

import { readFileSync, writeFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';

const [checkout, output] = process.argv.slice(2);
if (!checkout || !output || checkout === '--help' || checkout === '-h') {
  console.log('usage: node scripts/port-graphql-js-tests.mjs <graphql-js checkout> <output folder>');
  process.exit(checkout === '--help' || checkout === '-h' ? 0 : 64);
}

/// The TypeScript of a test file as JavaScript: imports and type annotations removed, in the code
/// only (never inside a string or a template literal, where GraphQL documents are).
function strip(source) {
  let text = source.replace(/^import[\s\S]*?from\s+'[^']+';\s*$/gm, '');
  text = text.replace(/^export\s+/gm, '');
  return splitCode(text)
    .map(({ code, text }) => (code ? stripTypes(text) : text))
    .join('');
}

function stripTypes(code) {
  // Parameter lists and return types of function declarations.
  let text = code.replace(/function\s+(\w+)\s*(<[^(]*>)?\s*\(([^)]*)\)\s*(:\s*[^{]+)?\{/g, (_, name, generics, params) => {
    const cleaned = topLevelParts(params)
      .map((p) => p.replace(/\?\s*:[\s\S]*$/, '').replace(/:\s*[\s\S]*$/, '').trim())
      .filter((p) => p.length > 0);
    return `function ${name}(${cleaned.join(', ')}) {`;
  });
  // Method shorthands with one annotated parameter (`Directive(node: DirectiveNode) {`).
  text = text.replace(/(\w+)\((\w+)\s*:\s*\w+\)\s*\{/g, '$1($2) {');
  text = text.replace(/\b(const|let)\s+(\w+)\s*:\s*[\w<>\[\]|. ]+\s*=/g, '$1 $2 =');
  text = text.replace(/\s+as\s+(const|any|[A-Z]\w*)\b/g, '');
  return text;
}

/// `text` as runs of code and of strings, template literals and comments (which stay as they are).
function splitCode(text) {
  const parts = [];
  let start = 0;
  let i = 0;
  const flush = (end, code) => {
    if (end > start) parts.push({ code, text: text.slice(start, end) });
    start = end;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '`' || c === "'" || c === '"') {
      flush(i, true);
      i += 1;
      while (i < text.length && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      i += 1;
      flush(i, false);
    } else if (c === '/' && text[i + 1] === '/') {
      flush(i, true);
      while (i < text.length && text[i] !== '\n') i += 1;
      flush(i, false);
    } else i += 1;
  }
  flush(text.length, true);
  return parts;
}

/// `text` split at the commas outside brackets.
function topLevelParts(text) {
  const parts = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if ('<({['.includes(character)) depth += 1;
    if ('>)}]'.includes(character)) depth -= 1;
    if (character === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += character;
  }
  parts.push(current);
  return parts;
}

/// What a test file's `it`s ask: each call of the harness records one case.
function record(file, text, names) {
  const cases = [];
  let titles = [];
  const schema = (sdl, base) => ({ __schema: true, sdl, base });
  const stubs = {
    describe: (title, body) => {
      titles.push(title);
      try {
        body();
      } catch (error) {
        // Tests made in a loop over types built in code.
        cases.push({ file, test: titles.join(' › ') + ' › (the rest)', skipped: `${error.message}` });
      }
      titles.pop();
    },
    it: (title, body) => {
      titles.push(title);
      try {
        body();
      } catch (error) {
        cases.push({ file, test: titles.join(' › '), skipped: `${error.message}` });
      }
      titles.pop();
    },
    buildSchema: (sdl) => schema(sdl),
    extendSchema: (base, document) => schema(document.__text, base),
    parse: (text) => ({ __text: text }),
    testSchema: { __schema: true, name: 'testSchema' },
    expectValidationErrorsWithSchema: (schema, rule, query) => expectation('document', schema, rule, query),
    expectValidationErrors: (rule, query) => expectation('document', stubs.testSchema, rule, query),
    expectSDLValidationErrors: (schema, rule, sdl) => expectation('sdl', schema, rule, sdl),
    // The full validation (every specified rule), as validation-test.ts calls it.
    validate: (schema, document, rules) => {
      if (!document?.__text) throw new Error('validates no document');
      if (rules === undefined) return { __validation: [schema, document.__text] };
      // FieldsOnCorrectTypeRule's message tests: `expect(errors.length).to.equal(1)`, then the message.
      if (rules.length !== 1 || typeof rules[0] !== 'string') throw new Error('validates with rules of its own');
      const call = { schema, document: document.__text, rule: rules[0] };
      return { length: { __count: call }, 0: { message: { __message: call } } };
    },
    expect: (value) => ({
      to: {
        equal(expected) {
          if (value?.__count) value.__count.count = expected;
          else if (value?.__message) {
            const call = value.__message;
            if (call.count !== 1) throw new Error('expects a message without a count of errors');
            cases.push({ file, test: titles.join(' › '), kind: 'document', rule: call.rule, schema: flatten(call.schema),
              document: call.document, errors: [{ message: expected }] });
          } else throw new Error('expects something other than validation errors');
        },
      },
    }),
    expectJSON: (value) => {
      if (value?.__schemaValidation) return expectation('schema', value.__schemaValidation, 'validateSchema', null);
      if (!value?.__validation) throw new Error('expects something other than validation errors');
      return expectation('document', value.__validation[0], 'all', value.__validation[1]);
    },
    // src/type/__tests__/validation-test.ts: a schema built from SDL (and extended), validated.
    validateSchema: (schema) => {
      if (!schema?.__schema) throw new Error('validates a schema not built from SDL');
      return { __schemaValidation: schema };
    },
  };
  function expectation(kind, schema, rule, document) {
    return {
      toDeepEqual(errors) {
        cases.push({ file, test: titles.join(' › '), kind, rule, schema: flatten(schema), document, errors });
      },
    };
  }
  // Rules are named by their identifiers; anything else imported is unknown here.
  const ruleNames = names.filter((n) => /Rule$/.test(n));
  const rules = Object.fromEntries(ruleNames.map((n) => [n, n]));
  const scope = { describe: stubs.describe, it: stubs.it, ...rules };
  for (const n of names) if (n in stubs) scope[n] = stubs[n];
  const other = names.filter((n) => !(n in scope));
  for (const n of other) {
    scope[n] = new Proxy(function () {}, {
      get: () => {
        throw new Error(`uses ${n}`);
      },
      apply: () => {
        throw new Error(`uses ${n}`);
      },
    });
  }
  const body = new Function(...Object.keys(scope), text);
  body(...Object.values(scope));
  return cases;
}

/// A schema as the SDL documents that build it, the base first; the harness's schema by name.
function flatten(schema) {
  if (!schema) return null;
  if (schema.name) return { name: schema.name };
  const base = schema.base ? flatten(schema.base) : null;
  return { sdl: [...(base?.sdl ?? []), schema.sdl], ...(base?.name ? { base: base.name } : {}) };
}

function importedNames(source) {
  const names = [];
  for (const match of source.matchAll(/^import\s+(type\s+)?\{([^}]*)\}\s+from\s+'[^']+';/gm)) {
    if (match[1]) continue;
    names.push(...match[2].split(',').map((s) => s.trim()).filter(Boolean));
  }
  return names;
}

const commit = execFileSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const directory = join(checkout, 'src/validation/__tests__');
const files = readdirSync(directory).filter((f) => f.endsWith('-test.ts')).sort();
const sources = [];
let all = [];
for (const name of files) {
  const path = join('src/validation/__tests__', name);
  const source = readFileSync(join(checkout, path), 'utf8');
  sources.push({ path, sha256: createHash('sha256').update(source).digest('hex'), bytes: Buffer.byteLength(source) });
  try {
    all = all.concat(record(path, strip(source), importedNames(source)));
  } catch (error) {
    all.push({ file: path, test: '(whole file)', skipped: `${error.message}` });
  }
}
// The schema validation tests: their preamble builds types in code, which the cases that build
// their schema from SDL do not use; it is left out, and a case that uses it is skipped.
{
  const path = 'src/type/__tests__/validation-test.ts';
  const source = readFileSync(join(checkout, path), 'utf8');
  sources.push({ path, sha256: createHash('sha256').update(source).digest('hex'), bytes: Buffer.byteLength(source) });
  const body = source.slice(source.search(/^describe\(/m));
  try {
    all = all.concat(record(path, strip(body), [...importedNames(source), ...preambleNames(source)]));
  } catch (error) {
    all.push({ file: path, test: '(whole file)', skipped: `${error.message}` });
  }
}

/// The names a file's preamble (before its first `describe`) declares.
function preambleNames(source) {
  const preamble = source.slice(0, source.search(/^describe\(/m));
  return [...preamble.matchAll(/^(?:const|function)\s+(\w+)/gm)].map((m) => m[1]);
}

const harnessPath = 'src/validation/__tests__/harness.ts';
const harness = readFileSync(join(checkout, harnessPath), 'utf8');
sources.push({ path: harnessPath, sha256: createHash('sha256').update(harness).digest('hex'), bytes: Buffer.byteLength(harness) });
const testSchema = harness.match(/testSchema: GraphQLSchema = buildSchema\(`([\s\S]*?)`\);/)[1];

mkdirSync(output, { recursive: true });
const data = {
  source: 'graphql/graphql-js',
  commit,
  licence: 'MIT (LICENSE beside this file)',
  files: sources,
  schemas: { testSchema },
  cases: all,
};
writeFileSync(join(output, 'validation.json'), JSON.stringify(data, null, 1) + '\n');
const ported = all.filter((c) => !c.skipped);
console.log(`${ported.length} cases ported, ${all.length - ported.length} not (see "skipped")`);
for (const c of all.filter((c) => c.skipped)) console.log(`  skipped: ${c.file}: ${c.test}: ${c.skipped}`);

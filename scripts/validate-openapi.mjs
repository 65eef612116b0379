#!/usr/bin/env node
// `npm run openapi:check`: the OpenAPI document must be valid OpenAPI 3.1 and follow the house rules —
// every operation named (unique operationId, summary), a success response, every response described (no
// generator placeholder "Default Response"), and errors in the one shared ErrorResponse shape — and lint with 0 errors under Redocly's `recommended` rules. Usable as a module too: the contract tests call checkOpenApi on GET /openapi.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ERROR_REF = '#/components/schemas/ErrorResponse';

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local JSON pointer (`#/a/b`) against the document; undefined when it points nowhere. */
function resolvePointer(doc, ref) {
  if (!ref.startsWith('#')) return undefined;
  let node = doc;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = node[key];
    if (node === undefined) return undefined;
  }
  return node;
}

function collectRefs(node, at, out) {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      collectRefs(item, `${at}/${i}`, out);
    });
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.push({ at, ref: value });
    else collectRefs(value, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
  }
}

function usesErrorResponse(response) {
  const content = isObject(response.content) ? response.content : {};
  const json = content['application/json'];
  return isObject(json) && isObject(json.schema) && json.schema.$ref === ERROR_REF;
}

function formatSchemaErrors(errors) {
  if (typeof errors === 'string') return [errors];
  return (errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

/** Redocly's `recommended` ruleset: its errors are problems (its warnings, e.g. no license, are not). */
async function redoclyErrors(doc) {
  const config = await createConfig({ extends: ['recommended'] });
  const results = await lintFromString({
    source: JSON.stringify(doc),
    absoluteRef: 'openapi.json',
    config,
  });
  return results
    .filter((result) => result.severity === 'error')
    .map((result) => `redocly ${result.ruleId}: ${result.message} (${result.location?.[0]?.pointer ?? '#'})`);
}

/** Returns every problem found; an empty list means the document passes. */
export async function checkOpenApi(doc) {
  if (!isObject(doc)) return ['the document is not a JSON object'];
  const problems = [];

  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  if (!result.valid) problems.push(...formatSchemaErrors(result.errors));
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.1.')) {
    problems.push(`openapi: expected a 3.1.x document, got ${JSON.stringify(doc.openapi)}`);
  }

  problems.push(...(await redoclyErrors(doc)));

  const refs = [];
  collectRefs(doc, '', refs);
  for (const { at, ref } of refs) {
    if (resolvePointer(doc, ref) === undefined) problems.push(`${at}: $ref ${ref} does not resolve`);
  }

  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes);
  const schemeNames = new Set(schemes ? Object.keys(doc.components.securitySchemes) : []);
  const operationIds = new Map();
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [route, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const where = `${method.toUpperCase()} ${route}`;
      if (typeof op.operationId !== 'string' || op.operationId === '') {
        problems.push(`${where}: missing operationId`);
      } else if (operationIds.has(op.operationId)) {
        problems.push(
          `${where}: operationId ${op.operationId} is also used by ${operationIds.get(op.operationId)}`,
        );
      } else {
        operationIds.set(op.operationId, where);
      }
      if (typeof op.summary !== 'string' || op.summary.trim() === '')
        problems.push(`${where}: missing summary`);

      const responses = isObject(op.responses) ? op.responses : {};
      const statuses = Object.keys(responses);
      if (!statuses.some((s) => /^2(\d\d|XX)$/.test(s))) problems.push(`${where}: no 2xx response`);
      for (const status of statuses) {
        if (isObject(responses[status]) && responses[status].description === 'Default Response') {
          problems.push(`${where}: response ${status} is described as "Default Response"`);
        }
      }
      let errorRefs = 0;
      for (const status of statuses) {
        if (!/^[45](\d\d|XX)$/.test(status)) continue;
        let response = responses[status];
        if (isObject(response) && typeof response.$ref === 'string')
          response = resolvePointer(doc, response.$ref);
        if (!isObject(response)) continue;
        if (usesErrorResponse(response)) {
          if (status.startsWith('4')) errorRefs++;
        } else {
          problems.push(`${where}: response ${status} does not use ${ERROR_REF}`);
        }
      }
      if (errorRefs === 0) problems.push(`${where}: no 4xx response using ${ERROR_REF}`);

      for (const requirement of Array.isArray(op.security) ? op.security : []) {
        for (const name of Object.keys(isObject(requirement) ? requirement : {})) {
          if (!schemeNames.has(name)) problems.push(`${where}: security scheme ${name} is not defined`);
        }
      }
    }
  }
  return problems;
}

async function cli(argv) {
  const [file] = argv;
  if (file === undefined) {
    process.stderr.write('usage: validate-openapi.mjs <openapi.json>\n');
    return 2;
  }
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    process.stderr.write(`${file}: cannot read as JSON: ${error.message}\n`);
    return 1;
  }
  const problems = await checkOpenApi(doc);
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`${file}: ${problem}\n`);
    process.stderr.write(`${problems.length} problem(s)\n`);
    return 1;
  }
  const count = Object.values(doc.paths ?? {}).reduce(
    (n, item) => n + METHODS.filter((m) => isObject(item) && isObject(item[m])).length,
    0,
  );
  process.stdout.write(
    `${file}: valid OpenAPI ${doc.openapi}, ${count} operation(s), house rules ok, Redocly recommended: 0 errors\n`,
  );
  return 0;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await cli(process.argv.slice(2));
}

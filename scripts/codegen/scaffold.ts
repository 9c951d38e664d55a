import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveLocal, type OpenApiDocument, type OperationObject, type PathItem } from './bundle.js';
import { GeneratorError, type DocumentModel, type OperationInfo } from './operations.js';

/**
 * `--scaffold DIR`: a typed handler stub for each operation that has none in DIR, and an index
 * that maps the operations to them when DIR has none. A stub answers the document's example of
 * the operation's first success response, or throws NotImplementedError (the HTTP layer answers
 * 501) where the document gives none. Files that exist are never changed: a second run adds only
 * the stubs of new operations, and the index, which is then the developer's, no longer compiles
 * until they are added to it.
 */

interface Example {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly value: unknown;
  readonly hasValue: boolean;
  /** The response's required headers, each with the document's example of it (or a value of its type). */
  readonly headers: Readonly<Record<string, string>>;
}

const q = (value: string): string => JSON.stringify(value);

/** `getPetById` → `get-pet-by-id`. */
export function kebabCase(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

type Json = Record<string, unknown>;

/** The first example a media type gives: its `example`, its first `examples` value, or its schema's. */
function exampleOf(document: OpenApiDocument, media: Json): { found: boolean; value: unknown } {
  if ('example' in media) return { found: true, value: media['example'] };
  const examples = media['examples'];
  if (typeof examples === 'object' && examples !== null) {
    for (const declared of Object.values(examples)) {
      const example = resolveLocal<Json>(document, declared as Json);
      if ('value' in example) return { found: true, value: example['value'] };
    }
  }
  if (media['schema'] !== undefined) {
    const schema = resolveLocal<Json>(document, media['schema'] as Json);
    if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return { found: true, value: schema['examples'][0] };
    if ('example' in schema) return { found: true, value: schema['example'] };
  }
  return { found: false, value: undefined };
}

/** A value for a required response header: its example, its schema's example, default or first enum value, else one of its type. */
function headerValue(document: OpenApiDocument, header: Json): string {
  const fromExamples = (holder: Json): unknown => {
    if ('example' in holder) return holder['example'];
    const examples = holder['examples'];
    if (Array.isArray(examples)) return examples[0];
    if (typeof examples === 'object' && examples !== null) {
      const first = Object.values(examples)[0];
      return first === undefined ? undefined : resolveLocal<Json>(document, first as Json)['value'];
    }
    return undefined;
  };
  const schema = header['schema'] === undefined ? {} : resolveLocal<Json>(document, header['schema'] as Json);
  const found = fromExamples(header) ?? fromExamples(schema) ?? schema['default'] ?? (Array.isArray(schema['enum']) ? schema['enum'][0] : undefined);
  if (found !== undefined) return String(found);
  const type = Array.isArray(schema['type']) ? schema['type'][0] : schema['type'];
  return type === 'integer' || type === 'number' ? '0' : type === 'boolean' ? 'true' : 'example';
}

function requiredHeaders(document: OpenApiDocument, response: Json): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, declared] of Object.entries((response['headers'] ?? {}) as Record<string, Json>)) {
    const header = resolveLocal<Json>(document, declared);
    if (header['required'] === true && name.toLowerCase() !== 'content-type') headers[name] = headerValue(document, header);
  }
  return headers;
}

/** The operation's first success response (200–299, or 2XX as 200) and its example, if it has one. */
function successExample(document: OpenApiDocument, operation: OperationInfo): Example | undefined {
  const item = resolveLocal<PathItem>(document, (document.paths ?? {})[operation.path] ?? {});
  const declared = item[operation.method] as OperationObject | undefined;
  for (const [key, value] of Object.entries(declared?.responses ?? {})) {
    const status = /^2[0-9][0-9]$/.test(key) ? Number(key) : key.toUpperCase() === '2XX' ? 200 : undefined;
    if (status === undefined) continue;
    const response = resolveLocal<Json>(document, value as Json);
    const headers = requiredHeaders(document, response);
    const content = (response['content'] ?? {}) as Record<string, Json>;
    const types = Object.keys(content);
    if (types.length === 0) return { status, contentType: undefined, value: undefined, hasValue: true, headers };
    for (const type of types) {
      const { found, value: example } = exampleOf(document, content[type] ?? {});
      if (found) return { status, contentType: type, value: example, hasValue: true, headers };
    }
    return { status, contentType: types[0], value: undefined, hasValue: false, headers };
  }
  return undefined;
}

function stub(operation: OperationInfo, example: Example | undefined, serverModule: string): string {
  const key = q(operation.key);
  const title = `${operation.method.toUpperCase()} ${operation.path}${operation.derived ? '' : ` (${operation.key})`}`;
  const header = `// A stub of ${title}, scaffolded by scripts/generate.ts. It is yours: the generator never changes it.\n`;
  if (example === undefined || !example.hasValue) {
    return `${header}import { NotImplementedError, type OperationHandler } from ${q(serverModule)};

/** Not written yet: answers 501 (the document gives no example to answer with). */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => {
  throw new NotImplementedError(${key});
};
`;
  }
  const headers = Object.keys(example.headers).length === 0 ? '' : `\n  headers: ${JSON.stringify(example.headers)},`;
  if (example.contentType === undefined) {
    return `${header}import type { OperationHandler } from ${q(serverModule)};

/** Not written yet: answers ${example.status}, as the document declares it, without a body. */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => ({
  status: ${example.status},${headers}
});
`;
  }
  const value = JSON.stringify(example.value, null, 2).replaceAll('\n', '\n  ');
  return `${header}import { documentExample, type AnswerBody, type OperationHandler } from ${q(serverModule)};

/** Not written yet: answers the document's example of its ${example.status} response. */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => ({
  status: ${example.status},
  contentType: ${q(example.contentType)},${headers}
  body: documentExample<AnswerBody<${key}, ${example.status}, ${q(example.contentType)}>>(${value}),
});
`;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Writes the stubs (and the index) DIR lacks; returns the files written, relative to DIR. */
export async function scaffoldHandlers(
  generation: { readonly model: DocumentModel; readonly document: OpenApiDocument },
  dir: string,
  outDir: string,
): Promise<string[]> {
  const { model, document } = generation;
  let serverModule = path.relative(dir, path.join(outDir, 'server.js')).split(path.sep).join('/');
  if (!serverModule.startsWith('.')) serverModule = `./${serverModule}`;
  const files = new Map<string, OperationInfo>();
  for (const operation of model.operations) {
    const file = `${kebabCase(operation.identifier)}.ts`;
    const other = [...files].find(([name]) => name.toLowerCase() === file.toLowerCase());
    if (other !== undefined) {
      throw new GeneratorError(operation.pointer, `its stub would be ${file}, the file of operationId ${q(other[1].key)}; rename one operationId`);
    }
    files.set(file, operation);
  }
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, operation] of files) {
    const target = path.join(dir, file);
    if (await exists(target)) continue;
    await writeFile(target, stub(operation, successExample(document, operation), serverModule));
    written.push(file);
  }
  const index = path.join(dir, 'index.ts');
  if (!(await exists(index))) {
    const imports = [...files].map(([file, op]) => `import { ${op.identifier} } from ${q(`./${file.replace(/\.ts$/, '.js')}`)};`);
    const entries = [...files.values()].map((op) => `  ${q(op.key)}: ${op.identifier},`);
    await writeFile(
      index,
      `// The handlers of every operation, scaffolded by scripts/generate.ts. It is yours: the generator never changes it,\n` +
        `// so when the document gains an operation, the compiler asks for its handler here.\n` +
        `import type { Handlers } from ${q(serverModule)};\n${imports.join('\n')}\n\nexport const handlers: Handlers<unknown> = {\n${entries.join('\n')}\n};\n`,
    );
    written.push('index.ts');
  }
  return written;
}

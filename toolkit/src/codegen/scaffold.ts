import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OpenApiDocument } from './bundle.js';
import { successExample, type RejectedExamples, type SuccessExample } from './examples.js';
import { GeneratorError, type DocumentModel, type OperationInfo } from './operations.js';

/**
 * `--scaffold DIR`: a typed handler stub for each operation that has none in DIR, and an index
 * that maps the operations to them when DIR has none. A stub responds with the document's example
 * of the operation's first success response (the first one that matches its schema), or throws
 * NotImplementedError (the HTTP layer responds with 501) where the document gives none. Files that
 * exist are never changed: a second run adds only the stubs of new operations, and the index,
 * which is then the developer's, no longer compiles until they are added to it.
 */

const q = (value: string): string => JSON.stringify(value);

/** `getPetById` → `get-pet-by-id`. */
export function kebabCase(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

function stub(operation: OperationInfo, example: SuccessExample | undefined, serverModule: string): string {
  const key = q(operation.key);
  const title = `${operation.method.toUpperCase()} ${operation.path}${operation.derived ? '' : ` (${operation.key})`}`;
  const header = `// A stub of ${title}, scaffolded by contract-first generate. It is yours: the generator never changes it.\n`;
  if (example === undefined || !example.hasValue) {
    return `${header}import { NotImplementedError, type OperationHandler } from ${q(serverModule)};

/** Not written yet: responds with 501 (the document gives no example to respond with). */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => {
  throw new NotImplementedError(${key});
};
`;
  }
  const headers = Object.keys(example.headers).length === 0 ? '' : `\n  headers: ${JSON.stringify(example.headers)},`;
  if (example.contentType === undefined) {
    return `${header}import type { OperationHandler } from ${q(serverModule)};

/** Not written yet: responds with ${example.status}, as the document declares it, without a body. */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => ({
  status: ${example.status},${headers}
});
`;
  }
  const value = JSON.stringify(example.value, null, 2).replaceAll('\n', '\n  ');
  return `${header}import { documentExample, type ResponseBody, type OperationHandler } from ${q(serverModule)};

/** Not written yet: responds with the document's example of its ${example.status} response. */
export const ${operation.identifier}: OperationHandler<${key}, unknown> = async () => ({
  status: ${example.status},
  contentType: ${q(example.contentType)},${headers}
  body: documentExample<ResponseBody<${key}, ${example.status}, ${q(example.contentType)}>>(${value}),
});
`;
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

export interface ScaffoldOptions {
  /** The type of the handlers' context the index declares (`Handlers<Context>`), and the module it comes from, relative to DIR; `unknown` without. */
  readonly contextType?: { readonly name: string; readonly from: string };
}

/** Writes the stubs (and the index) DIR lacks; returns the files written, relative to DIR. */
export async function scaffoldHandlers(
  generation: {
    readonly model: DocumentModel;
    readonly document: OpenApiDocument;
    readonly rejectedExamples?: RejectedExamples;
  },
  dir: string,
  outDir: string,
  options: ScaffoldOptions = {},
): Promise<string[]> {
  const { model, document, rejectedExamples } = generation;
  const context = options.contextType;
  let serverModule = path.relative(dir, path.join(outDir, 'server.js')).split(path.sep).join('/');
  if (!serverModule.startsWith('.')) serverModule = `./${serverModule}`;
  const files = new Map<string, OperationInfo>();
  for (const operation of model.operations) {
    const file = `${kebabCase(operation.identifier)}.ts`;
    const other = [...files].find(([name]) => name.toLowerCase() === file.toLowerCase());
    if (other !== undefined) {
      throw new GeneratorError(
        operation.pointer,
        `its stub would be ${file}, the file of operationId ${q(other[1].key)}; rename one operationId`,
      );
    }
    files.set(file, operation);
  }
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const [file, operation] of files) {
    const target = path.join(dir, file);
    if (await exists(target)) continue;
    await writeFile(
      target,
      stub(operation, successExample(document, operation.path, operation.method, rejectedExamples), serverModule),
    );
    written.push(file);
  }
  const index = path.join(dir, 'index.ts');
  if (!(await exists(index))) {
    const imports = [...files].map(
      ([file, op]) => `import { ${op.identifier} } from ${q(`./${file.replace(/\.ts$/, '.js')}`)};`,
    );
    const entries = [...files.values()].map((op) => `  ${q(op.key)}: ${op.identifier},`);
    await writeFile(
      index,
      `// The handlers of every operation, scaffolded by contract-first generate. It is yours: the generator never changes it,\n` +
        `// so when the document gains an operation, the compiler asks for its handler here.\n` +
        `import type { Handlers } from ${q(serverModule)};\n` +
        (context === undefined ? '' : `import type { ${context.name} } from ${q(context.from)};\n`) +
        `${imports.join('\n')}\n\nexport const handlers: Handlers<${context?.name ?? 'unknown'}> = {\n${entries.join('\n')}\n};\n`,
    );
    written.push('index.ts');
  }
  return written;
}

import path from 'node:path';
import ts from 'typescript';

/**
 * Type-checks `files` together with the project's compiler options (tsconfig.json under `root`)
 * and returns each file's diagnostics as the messages a developer reads, flattened to text. The
 * tests of the generated types use it to see the exact errors a handler off the contract gets.
 */
export function compileDiagnostics(
  root: string,
  files: readonly string[],
  options: ts.CompilerOptions = {},
): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error(`${path.join(root, 'tsconfig.json')} cannot be read`);
  const program = ts.createProgram([...files], { ...config.options, noEmit: true, ...options });
  const messages = new Map<string, string[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    messages.set(
      file,
      diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    );
  }
  return messages;
}

// The entry of a worker thread whose program is a TypeScript module, used only while the code runs
// from its source (under tsx or vitest; the compiled build starts the module's .js directly). It
// registers tsx's loader in this thread, which Node 20 does not do for a thread (thread.ts,
// `startThread`, says why), then imports the module whose URL is the thread's last argument.
// Plain JavaScript because Node loads it before any loader is registered; it holds no logic of
// its own to type-check.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[process.argv.length - 1]);

// What the bundled CompilerApi finds for `@cubejs-backend/native`: the emulator's subclass replaces the one
// use of it (createNativeInstance, src/engine/access.ts), so Cube's native module is never installed nor loaded.
export class NativeInstance {
  constructor() {
    throw new Error("the emulator does not load Cube's native module");
  }
}

/**
 * Run before each test file (jest.config.js, setupFilesAfterEnv): after the
 * file's last test, no line its loggers made may repeat a key (harness/log-check.ts).
 */
import { linesWithRepeatedKeys } from '../harness/log-check.js';

afterAll(() => {
  expect(linesWithRepeatedKeys()).toEqual([]);
});

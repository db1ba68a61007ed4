import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  chunkSchedule,
  isFinalUploadState,
  nextChunkMultiplier,
  nextChunkSize,
  retryDeadlineMs,
  stateAfterAction,
  stateWhenSettled,
  UPLOAD_STATES,
  uploadPercent,
  usesMultipartUpload,
  type UploadAction,
  type UploadState,
} from './storage-upload.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('upload task transitions (spec section 4)', () => {
  // Every state against every action: undefined means the method returns false.
  const table: [UploadState, UploadAction, UploadState | undefined][] = [
    ['running', 'pause', 'pausing'],
    ['running', 'resume', undefined],
    ['running', 'cancel', 'canceling'],
    ['pausing', 'pause', undefined],
    ['pausing', 'resume', 'running'],
    ['pausing', 'cancel', 'canceling'],
    ['paused', 'pause', undefined],
    ['paused', 'resume', 'running'],
    ['paused', 'cancel', undefined],
    ['canceling', 'pause', undefined],
    ['canceling', 'resume', undefined],
    ['canceling', 'cancel', undefined],
    ['canceled', 'pause', undefined],
    ['canceled', 'resume', undefined],
    ['canceled', 'cancel', undefined],
    ['success', 'pause', undefined],
    ['success', 'resume', undefined],
    ['success', 'cancel', undefined],
    ['error', 'pause', undefined],
    ['error', 'resume', undefined],
    ['error', 'cancel', undefined],
  ];
  it('covers every state and action', () => expect(table).toHaveLength(UPLOAD_STATES.length * 3));
  it.each(table)('%s + %s -> %s', (state, action, next) => expect(stateAfterAction(state, action)).toBe(next));

  it.each([
    ['pausing', 'paused'],
    ['canceling', 'canceled'],
    ['running', 'running'],
    ['paused', 'paused'],
    ['success', 'success'],
    ['error', 'error'],
    ['canceled', 'canceled'],
  ] as const)('settles %s as %s', (state, settled) => expect(stateWhenSettled(state)).toBe(settled));

  it.each([
    ['success', true],
    ['canceled', true],
    ['error', true],
    ['running', false],
    ['pausing', false],
    ['paused', false],
    ['canceling', false],
  ] as const)('%s is final: %s', (state, final) => expect(isFinalUploadState(state)).toBe(final));
});

describe('multipart or resumable', () => {
  it.each([
    [0, true],
    [1, true],
    [262_143, true],
    [262_144, true],
    [262_145, false],
    [20 * MiB, false],
  ])('%i bytes multipart: %s', (size, multipart) => expect(usesMultipartUpload(size)).toBe(multipart));
});

describe('chunk schedule (spec section 9)', () => {
  it.each([
    [1, true, 2],
    [2, true, 4],
    [64, true, 128],
    [64, false, 1],
    // 64 x 256 KiB = 16 MiB is below 32 MiB, so it doubles once more; 32 MiB stays.
    [128, true, 128],
    [128, false, 1],
  ])('multiplier %i after %s -> %i', (multiplier, ok, next) => expect(nextChunkMultiplier(multiplier, ok)).toBe(next));

  it.each([
    [262_145, [262_144, 1]],
    [1 * MiB, [256 * KiB, 512 * KiB, 256 * KiB]],
    [4 * MiB, [256 * KiB, 512 * KiB, 1 * MiB, 2 * MiB, 256 * KiB]],
    [100 * MiB, [256 * KiB, 512 * KiB, 1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB, 32 * MiB, 4.25 * MiB]],
  ])('%i bytes -> %j', (total, sizes) => {
    const schedule = chunkSchedule(total);
    expect(schedule).toEqual(sizes.map((size) => Math.round(size)));
    expect(schedule.reduce((a, b) => a + b, 0)).toBe(total);
    expect(Math.max(...schedule)).toBeLessThanOrEqual(33_554_432);
  });

  it.each([
    [1, 0, 1 * MiB, 256 * KiB],
    [4, 0, 1 * MiB, 1 * MiB],
    [4, 900 * KiB, 1 * MiB, 124 * KiB],
    [4, 1 * MiB, 1 * MiB, 0],
  ])('multiplier %i at offset %i of %i -> %i', (multiplier, offset, total, size) => expect(nextChunkSize(multiplier, offset, total)).toBe(size));
});

describe('retry backoff', () => {
  it.each([
    [1, 0, 2_000],
    [2, 0, 4_000],
    [3, 0.5, 8_500],
    [5, 0, 32_000],
    [6, 0, 64_000],
    [7, 0, 64_000],
    [30, 0.999, 64_999],
  ])('retry %i with jitter %s waits %i ms', (retry, jitter, delay) => expect(backoffDelayMs(retry, jitter)).toBe(delay));

  it.each([
    [{ operationStartMs: 0 }, 120_000],
    [{ operationStartMs: 1_000, uploadStartMs: 0 }, 121_000],
    [{ operationStartMs: 550_000, uploadStartMs: 0 }, 600_000],
    [{ operationStartMs: 10, maxOperationMs: 50 }, 60],
  ])('%o -> deadline %i', (window, deadline) => expect(retryDeadlineMs(window)).toBe(deadline));
});

describe('progress in percent', () => {
  it.each([
    [0, 1000, 0],
    [999, 1000, 99],
    [1000, 1000, 100],
    [262_144, 1_048_576, 25],
    [0, 0, 100],
  ])('%i of %i -> %i%', (bytes, total, percent) => expect(uploadPercent(bytes, total)).toBe(percent));
});

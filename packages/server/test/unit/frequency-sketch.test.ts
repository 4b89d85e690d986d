import { describe, expect, it } from 'vitest';
import { FrequencySketch } from '../../src/services/frequency-sketch.js';

describe('FrequencySketch', () => {
  it('estimates how often each key was asked for, never below the count', () => {
    const sketch = new FrequencySketch(1000);
    for (let i = 0; i < 200; i++) for (let n = 0; n <= i % 8; n++) sketch.increment(`key-${i}`);
    for (let i = 0; i < 200; i++) expect(sketch.frequency(`key-${i}`)).toBeGreaterThanOrEqual((i % 8) + 1);
    expect(sketch.frequency('never-asked')).toBe(0);
  });

  it('stops counting at 15 and halves every count once its sample is full, so old popularity fades', () => {
    const sketch = new FrequencySketch(1);
    for (let i = 0; i < 40; i++) sketch.increment('hot');
    expect(sketch.frequency('hot')).toBe(15);
    // 1,024 counters a row: the sample is 10,240 increments.
    for (let i = 0; i < 10_240; i++) sketch.increment(`other-${i}`);
    expect(sketch.frequency('hot')).toBeLessThanOrEqual(7);
    expect(sketch.bytes).toBe(4 * 1024);
  });
});

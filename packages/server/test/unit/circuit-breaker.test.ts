import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/services/uplinks/circuit-breaker.js';

describe('CircuitBreaker', () => {
  it('opens after the threshold of failures in a row, for openMs', () => {
    const circuit = new CircuitBreaker(3, 30_000);
    circuit.failure(0);
    circuit.failure(1);
    expect(circuit.state(2)).toBe('closed');
    expect(circuit.allow(2)).toBe(true);
    circuit.failure(2);
    expect(circuit.state(3)).toBe('open');
    expect(circuit.allow(3)).toBe(false);
    expect(circuit.retryAfterSeconds(3, 10)).toBe(30);
    expect(circuit.retryAfterSeconds(29_500, 10)).toBe(1);
  });

  it('lets one probe through once openMs has passed; its success closes the circuit', () => {
    const circuit = new CircuitBreaker(1, 1000);
    circuit.failure(0);
    expect(circuit.state(1000)).toBe('half-open');
    expect(circuit.allow(1000)).toBe(true);
    expect(circuit.allow(1001)).toBe(false);
    circuit.success();
    expect(circuit.state(1002)).toBe('closed');
    expect(circuit.failures).toBe(0);
    expect(circuit.retryAfterSeconds(1002, 10)).toBe(10);
  });

  it('reopens when the probe fails, and frees a probe that never reports after openMs', () => {
    const circuit = new CircuitBreaker(1, 1000);
    circuit.failure(0);
    expect(circuit.allow(1000)).toBe(true);
    circuit.failure(1000);
    expect(circuit.state(1500)).toBe('open');
    expect(circuit.allow(2000)).toBe(true);
    // That probe never reports back (its request threw): another may go after openMs.
    expect(circuit.allow(2500)).toBe(false);
    expect(circuit.allow(3000)).toBe(true);
  });
});

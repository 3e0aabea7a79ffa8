class Queue {
  constructor(capacity) {
    if (capacity < 0) throw new RangeError("capacity must be >= 0");
    this.capacity = capacity;
    this.items = [];
  }
  push(x) {
    if (this.items.length >= this.capacity) return false;
    this.items.push(x);
    return true;
  }
  shift() { return this.items.shift(); }
  peekN(n) { return this.items.slice(0, n); }
  drain() { const all = this.items; this.items = []; return all; }
}
module.exports = { Queue };

const assert = require("assert");
const { Queue } = require("./queue");
const q = new Queue(2);
assert.ok(q.push(1) && q.push(2) && !q.push(3));
assert.deepStrictEqual(q.peekN(1), [1]);
assert.deepStrictEqual(q.drain(), [1, 2]);
console.log("ok");

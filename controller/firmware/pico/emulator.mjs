// SPDX-License-Identifier: MIT
// The emulated Pico: the official MicroPython UF2 for the Raspberry Pi Pico, run instruction by
// instruction in rp2040js (npm), for controller/firmware/rp2040.py, which drives it.
//
//   node emulator.mjs --uf2 FIRMWARE.uf2 --bootrom BOOTROM.bin --serial-fd N --reply-fd M
//
// Standard input: the host's commands, one JSON object a line; fd N: the board's USB serial (the
// master end of a pseudo-terminal, non-blocking); fd M: one JSON reply a line for each command. Time is the
// host's: the chip runs only inside a `run` command (up to a time, or until a watched pin moves or
// a line comes out), or freely after `free` (paced to the wall clock or not) until `pause`. While
// the chip sleeps (WFI/WFE), time jumps to its next timer alarm, so idle time costs no wall time.
//
// What rp2040js lacks, and what is done here instead:
// - flash erase and program: the boot ROM's flash_range_erase and flash_range_program are trapped
//   and done on the flash array; each takes a real chip's time (a 4 KiB sector erase about 45 ms, a
//   256-byte page 0.4 ms, interrupts held as on a Pico), and every sector's erases are counted;
// - a host that holds a read: a stock rp2040js answers every USB read at once with an empty
//   packet, an interrupt storm; here the read waits until the host has sent something;
// - a reset: a watchdog reset (its timeout, or machine.reset()) starts a new chip on the same flash,
//   keeping the watchdog's reason and scratch registers as a Pico does; a power cut (`power_cut`)
//   starts one with them cleared.
// - a board on a USB charger (`charger`): the power comes back with no host on its USB, which then
//   never comes up, as from a phone charger's plug; nothing passes on its serial port meanwhile.
// A host that does not read its end (`host_reading` false, or a full pseudo-terminal) is a USB
// host that NAKs the board's IN packets: the board's USB buffer fills, as on a real cable.

import fs from 'node:fs';
import readline from 'node:readline';
import { Simulator, USBCDC, ConsoleLogger, LogLevel } from 'rp2040js';

const FLASH_BASE = 0x10000000;
const FLASH_SIZE = 2 * 1024 * 1024;           // a Pico's W25Q16JV
const SECTOR = 4096;
const PAGE = 256;
const CYCLE_NS = 8;                            // rp2040js counts cycles of a 125 MHz clock
const SECTOR_ERASE_NS = 45e6;                  // W25Q16JV typical figures
const PAGE_PROGRAM_NS = 0.4e6;
const SLICE_NS = 1e6;                          // serial in and out between slices of this
const RX_ROOM = 256;                           // rp2040js' USB receive FIFO holds 512 bytes
const INBOX = 4096;                            // the host's bytes read ahead of the board's USB
const HOST_WAIT_MS = 5000;                     // how long a run waits for bytes the host says it sent
const OUT_BACKLOG = 4096;                      // unwritten bytes before the board's packets are refused
const FREE_SLICE_NS = 5e6;
const IDLE_POLL_SLICES = 64;                   // in a stepped run with nothing owed, how seldom the port is read

function options(argv) {
  const found = {};
  for (let i = 0; i < argv.length; i += 2) found[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const name of ['uf2', 'bootrom', 'serial-fd', 'reply-fd']) {
    if (!found[name]) throw new Error(`--${name} is missing`);
  }
  return found;
}

function uf2Blocks(path) {
  const data = fs.readFileSync(path);
  const blocks = [];
  for (let at = 0; at + 512 <= data.length; at += 512) {
    if (data.readUInt32LE(at) !== 0x0a324655 || data.readUInt32LE(at + 4) !== 0x9e5d5157
        || data.readUInt32LE(at + 508) !== 0x0ab16f30) continue;
    if (data.readUInt32LE(at + 8) & 1) continue;      // "not main flash"
    const address = data.readUInt32LE(at + 12), size = data.readUInt32LE(at + 16);
    blocks.push([address - FLASH_BASE, data.subarray(at + 32, at + 32 + size)]);
  }
  if (!blocks.length) throw new Error(`${path} holds no UF2 blocks for the flash`);
  return blocks;
}

function romFunction(bootrom, code) {
  const bytes = new Uint8Array(bootrom.buffer, bootrom.byteOffset, bootrom.byteLength);
  const u16 = (a) => bytes[a] | (bytes[a + 1] << 8);
  const wanted = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
  for (let t = u16(0x14); u16(t); t += 4) if (u16(t) === wanted) return u16(t + 2) & ~1;
  throw new Error(`the boot ROM has no function ${code}`);
}

class Board {
  constructor(opts) {
    this.firmware = uf2Blocks(opts.uf2);
    const rom = fs.readFileSync(opts.bootrom);
    if (rom.length !== 16384) throw new Error(`${opts.bootrom} is ${rom.length} bytes, not a 16 KiB RP2040 boot ROM`);
    this.bootrom = new Uint32Array(rom.buffer.slice(rom.byteOffset, rom.byteOffset + rom.length));
    this.romErase = romFunction(this.bootrom, 'RE');
    this.romProgram = romFunction(this.bootrom, 'RP');
    this.serialFd = Number(opts['serial-fd']);
    this.replyFd = Number(opts['reply-fd']);
    this.chip = null;
    this.hostNs = 0;           // the host's time when this chip started
    this.chipStartNs = 0;      // the chip's clock then
    this.watched = new Set();
    this.stopPins = new Set();
    this.driven = new Map();   // pin -> the level the host drives it to
    this.pinLog = [];
    this.out = [];             // the board's bytes not yet written to the pseudo-terminal
    this.outBytes = 0;
    this.written = 0;
    this.inbox = [];           // the host's bytes read from the pseudo-terminal, not yet the board's
    this.inboxBytes = 0;
    this.received = 0;         // the host's bytes read from the pseudo-terminal so far
    this.announced = undefined; // the bytes the host says it has sent, in a stepped run (a free run: undefined)
    this.idleSlices = 0;
    this.scratch = Buffer.allocUnsafe(INBOX);
    this.hostReading = true;
    this.resets = [];
    this.erases = new Map();   // sector -> erases
    this.pages = 0;
    this.flashOps = 0;         // the boot ROM's erase and program calls
    this.charger = false;      // powered with no USB host: its USB never comes up
    this.cutAt = null;         // the flash operation the power goes before (cut_at_flash)
    this.stop = null;
    this.lineSeen = false;
    this.stopOnLine = false;
    this.flashBusyUntil = null;
    this.freeRunning = null;
    this.freeWaits = false;    // the free run's next slice waits for the wall clock (a timeout, not an immediate)
    this.cycles = 0;           // executed, as opposed to slept through
    this.runWallNs = 0n;
  }

  get now() {
    return this.chip ? this.hostNs + this.chip.clock.nanos - this.chipStartNs : this.hostNs;
  }

  // --- power -----------------------------------------------------------------------------------
  powerOn({ flash = null, watchdog = null, timerNs = 0 } = {}) {
    const hostNs = this.now;
    const sim = new Simulator();
    const mcu = sim.rp2040;
    mcu.logger = new ConsoleLogger(LogLevel.Error);
    mcu.loadBootrom(this.bootrom);
    if (flash) mcu.flash.set(flash.subarray(0, Math.min(flash.length, mcu.flash.length)));
    for (const [offset, data] of this.firmware) mcu.flash.set(data, offset);
    if (timerNs) sim.clock.tick(timerNs);
    const dog = mcu.peripherals[0x40058];
    if (watchdog) {
      dog.reason = watchdog.reason;
      dog.scratchData.set(watchdog.scratch);
    }
    dog.onWatchdogTrigger = () => {
      // the chip resets: its watchdog stops counting (rp2040js would fire it again at once, for ever)
      dog.alarm.enable = false;
      this.stop = 'reset';
      this.resetPending = true;
    };
    const chip = { sim, mcu, clock: sim.clock, cdc: null, connected: false, pendingRead: null, heldWrites: [],
                   serveRead: () => {}, releaseWrites: () => {} };
    if (!this.charger) this.plugHost(chip);
    for (const pin of this.watched) this.listen(chip, pin);
    for (const [pin, level] of this.driven) mcu.gpio[pin].setInputValue(level);
    mcu.core.PC = FLASH_BASE;
    this.chip = chip;
    this.hostNs = hostNs;
    this.chipStartNs = sim.clock.nanos;
    this.flashBusyUntil = null;
    this.resetPending = false;
    this.powerCutPending = false;
  }

  // A USB host on the chip's cable, which enumerates its serial port.
  plugHost(chip) {
    const { mcu } = chip;
    const cdc = new USBCDC(mcu.usbCtrl);
    chip.cdc = cdc;
    cdc.onDeviceConnected = () => { chip.connected = true; };
    cdc.onSerialData = (data) => this.fromBoard(data);
    const usb = mcu.usbCtrl, stockRead = usb.onEndpointRead, stockUpdate = usb.DPRAMUpdated.bind(usb);
    usb.onEndpointRead = (endpoint, size) => {
      if (cdc.txFIFO.empty) { chip.pendingRead = [endpoint, size]; return; }
      stockRead(endpoint, size);
    };
    chip.serveRead = () => {
      const waiting = chip.pendingRead;
      chip.pendingRead = null;
      if (waiting) stockRead(waiting[0], waiting[1]);
    };
    // The board's IN packets (its serial output) wait while the host does not read.
    usb.DPRAMUpdated = (offset, value) => {
      if (cdc.inEndpoint > 0 && offset === 0x80 + 8 * cdc.inEndpoint && (value & (1 << 10)) && !this.takesOutput()) {
        chip.heldWrites.push([offset, value]);
        return;
      }
      stockUpdate(offset, value);
    };
    chip.releaseWrites = () => {
      while (chip.heldWrites.length && this.takesOutput()) stockUpdate(...chip.heldWrites.shift());
    };
  }

  takesOutput() {
    return this.hostReading && this.outBytes < OUT_BACKLOG;
  }

  watchdogState() {
    const dog = this.chip.mcu.peripherals[0x40058];
    return { reason: dog.reason, scratch: Uint32Array.from(dog.scratchData) };
  }

  reset(cause, timerNs = 0) {
    // A real board's USB port goes away as it resets: the host loses what it had not read yet.
    this.pumpSerial();
    this.out = [];
    this.outBytes = 0;
    this.resets.push([cause, this.now, this.written]);
    this.powerOn({ flash: this.chip.mcu.flash, watchdog: cause === 'watchdog' ? this.watchdogState() : null, timerNs });
  }

  listen(chip, pin) {
    chip.mcu.gpio[pin].addListener((state) => {
      if (this.pinLog.length >= 100000) this.pinLog.splice(0, 50000);    // a free run nobody asks
      this.pinLog.push([pin, state, this.now]);
      if (this.stopPins.has(pin)) this.stop = 'pin';
    });
  }

  // --- serial -------------------------------------------------------------------------------
  fromBoard(data) {
    this.out.push(Buffer.from(data));
    this.outBytes += data.length;
    if (this.stopOnLine && data.includes(10)) { this.lineSeen = true; this.stop = 'line'; }
  }

  pumpSerial() {
    const { chip } = this;
    if (!chip.cdc) return;     // on a charger: no host, no serial port
    while (this.out.length) {
      let n;
      try {
        n = fs.writeSync(this.serialFd, this.out[0]);
      } catch (error) {
        if (error.code === 'EAGAIN' || error.code === 'EIO') break;
        throw error;
      }
      this.written += n;
      this.outBytes -= n;
      if (n === this.out[0].length) this.out.shift();
      else { this.out[0] = this.out[0].subarray(n); break; }
    }
    chip.releaseWrites();
    // A read of an empty pseudo-terminal costs Node an exception: in a stepped run, the port is read
    // while the host's announced bytes are owed, and only now and then once they are all here.
    if (this.announced === undefined || this.received < this.announced || ++this.idleSlices % IDLE_POLL_SLICES === 0) {
      this.readHost();
    }
    let room = RX_ROOM - chip.cdc.txFIFO.itemCount;
    while (room > 0 && this.inbox.length) {
      const piece = this.inbox[0];
      const n = Math.min(room, piece.length);
      for (let i = 0; i < n; i++) chip.cdc.sendSerialByte(piece[i]);
      room -= n;
      this.inboxBytes -= n;
      if (n === piece.length) this.inbox.shift();
      else this.inbox[0] = piece.subarray(n);
    }
    if (!chip.cdc.txFIFO.empty) chip.serveRead();
  }

  // The host's bytes waiting on the pseudo-terminal, read ahead up to INBOX.
  readHost() {
    while (this.inboxBytes < INBOX) {
      let n = 0;
      try {
        n = fs.readSync(this.serialFd, this.scratch, 0, INBOX - this.inboxBytes, null);
      } catch (error) {
        if (error.code !== 'EAGAIN' && error.code !== 'EIO') throw error;
      }
      if (n <= 0) return;
      this.inbox.push(Buffer.from(this.scratch.subarray(0, n)));
      this.inboxBytes += n;
      this.received += n;
    }
  }

  // A run starts once the bytes the host says it has sent are here: a pseudo-terminal passes
  // them on a moment after the host's write, later on a busy machine, and the board's time
  // must not depend on that moment.
  awaitHost(sent) {
    const deadline = Date.now() + HOST_WAIT_MS;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    this.readHost();
    while (this.received < sent && this.inboxBytes < INBOX && Date.now() < deadline) {
      Atomics.wait(nap, 0, 0, 1);
      this.readHost();
    }
  }

  // --- running -------------------------------------------------------------------------------
  // Run the chip until the host's time `until` (ns), or sooner for a stop: a watched pin that
  // stops a run moved, a line came out (stopOnLine), the chip reset. It starts once the host's
  // bytes up to `sent` (its count of bytes written to the port) have been read.
  run(until, stopOnLine = false, sent = undefined) {
    const wall = process.hrtime.bigint();
    this.announced = sent;
    this.awaitHost(sent);
    this.stop = null;
    this.lineSeen = false;
    this.stopOnLine = stopOnLine;
    const written = this.written;
    while (this.now < until && !this.stop) {
      this.pumpSerial();
      this.execute(Math.min(until, this.now + SLICE_NS));
      if (this.resetPending) this.reset('watchdog');
      if (this.powerCutPending) { this.powerCutPending = false; this.reset('power'); }
    }
    this.pumpSerial();
    this.runWallNs += process.hrtime.bigint() - wall;
    return { now: this.now, stopped: this.stop || 'time', out: this.written - written, written: this.written };
  }

  // What happened since it was last asked: the watched pins' changes and the resets.
  happened() {
    const pins = this.pinLog.splice(0), resets = this.resets.splice(0);
    return { pins, resets };
  }

  execute(until) {
    const { mcu, clock } = this.chip;
    const { core } = mcu;
    const end = until - this.hostNs + this.chipStartNs;
    const { romErase, romProgram } = this;
    while (clock.nanos < end && !this.stop) {
      if (this.flashBusyUntil !== null) {
        // the flash is being written: the chip waits with its interrupts held, time passes
        const to = Math.min(this.flashBusyUntil, end);
        clock.tick(to - clock.nanos);
        if (clock.nanos >= this.flashBusyUntil) {
          this.flashBusyUntil = null;
          core.PC = core.LR & ~1;
        }
        continue;
      }
      const pc = core.PC;
      if (pc === romErase || pc === romProgram) {
        this.flashOperation(pc === romErase);
        continue;
      }
      if (core.waiting) {
        const next = clock.nextAlarm ? clock.nextAlarm.nanos : end;
        clock.tick(Math.max(0, Math.min(next, end) - clock.nanos));
      } else {
        const cycles = core.executeInstruction();
        this.cycles += cycles;
        clock.tick(cycles * CYCLE_NS);
      }
    }
  }

  flashOperation(erase) {
    const { mcu, clock } = this.chip;
    const r = mcu.core.registers;
    this.flashOps++;
    if (this.cutAt !== null && this.flashOps >= this.cutAt) {
      // the power goes as the chip starts this erase or program: it is never done
      this.cutAt = null;
      this.stop = 'reset';
      this.powerCutPending = true;
      return;
    }
    const offset = r[0] >>> 0, count = (erase ? r[1] : r[2]) >>> 0;
    let busy;
    if (erase) {                        // flash_range_erase(offset, count, block_size, block_cmd)
      mcu.flash.fill(0xff, offset, offset + count);
      const first = Math.floor(offset / SECTOR), last = Math.floor((offset + count - 1) / SECTOR);
      for (let s = first; s <= last; s++) this.erases.set(s, (this.erases.get(s) || 0) + 1);
      busy = (last - first + 1) * SECTOR_ERASE_NS;
    } else {                            // flash_range_program(offset, data, count)
      const source = r[1] >>> 0;
      for (let i = 0; i < count; i++) mcu.flash[offset + i] &= mcu.readUint8(source + i);
      const pages = Math.ceil(count / PAGE);
      this.pages += pages;
      busy = pages * PAGE_PROGRAM_NS;
    }
    this.flashBusyUntil = clock.nanos + busy;
  }

  freeRun(pace) {
    const started = { wall: process.hrtime.bigint(), now: this.now };
    const slice = () => {
      if (!this.freeRunning) return;
      let until = this.now + FREE_SLICE_NS;
      if (pace) {
        const wall = Number(process.hrtime.bigint() - started.wall);
        until = Math.min(until, started.now + wall);
      }
      if (until > this.now) this.run(until);
      else this.pumpSerial();
      this.freeWaits = pace && until <= this.now;      // ahead of the wall clock: wait for it
      this.freeRunning = this.freeWaits ? setTimeout(slice, 1) : setImmediate(slice);
    };
    this.freeWaits = false;
    this.freeRunning = setImmediate(slice);
  }

  // --- the host's commands ------------------------------------------------------------------------
  command(message) {
    switch (message.op) {
      case 'power_on': {
        const flash = message.flash ? fs.readFileSync(message.flash) : null;
        this.powerOn({ flash, timerNs: (message.timer_us || 0) * 1000 });
        return this.connect(message.within_ms || 1000);
      }
      case 'power_cut':
        this.reset('power', (message.timer_us || 0) * 1000);
        return this.connect(message.within_ms || 1000);
      case 'run':
        return Object.assign(this.run(message.until, !!message.stop_on_line, message.sent), this.happened());
      case 'received':
        this.readHost();
        return { now: this.now, received: this.received };
      case 'drive':
        for (const [pin, level] of message.pins) {
          if (this.driven.get(pin) === level) continue;
          this.driven.set(pin, level);
          this.chip.mcu.gpio[pin].setInputValue(level);
        }
        return { now: this.now, written: this.written };
      case 'watch':
        for (const pin of message.pins) {
          if (!this.watched.has(pin)) { this.watched.add(pin); this.listen(this.chip, pin); }
        }
        for (const pin of message.stop || []) this.stopPins.add(pin);
        return { now: this.now, levels: message.pins.map((pin) => this.chip.mcu.gpio[pin].value) };
      case 'charger':
        this.charger = !!message.on;
        this.reset('power');
        return this.connect(message.within_ms || 1000);
      case 'host_reading':
        this.hostReading = !!message.on;
        this.pumpSerial();
        return { now: this.now };
      case 'free':
        if (!this.freeRunning) this.freeRun(!!message.pace);
        return { now: this.now };
      case 'pause':
        // each handle cleared by its own kind: clearImmediate on a timeout's handle miscounts Node's
        // queue of immediates, and the next free run's slices never came (its time stood still)
        if (this.freeRunning) (this.freeWaits ? clearTimeout : clearImmediate)(this.freeRunning);
        this.freeRunning = null;
        return Object.assign({ now: this.now }, this.happened());
      case 'flash':
        return { now: this.now, erases: [...this.erases.entries()], pages: this.pages };
      case 'cut_at_flash':
        this.cutAt = this.flashOps + message.operation;
        return { now: this.now };
      case 'effort':
        return { now: this.now, busy_ns: this.cycles * CYCLE_NS, run_wall_ns: Number(this.runWallNs) };
      case 'save_flash':
        fs.writeFileSync(message.path, this.chip.mcu.flash.subarray(0, FLASH_SIZE));
        return { now: this.now };
      case 'debug':
        return { now: this.now, connected: this.chip.connected, pc: this.chip.mcu.core.PC, waiting: this.chip.mcu.core.waiting, reason: this.chip.mcu.peripherals[0x40058].reason, scratch: Array.from(this.chip.mcu.peripherals[0x40058].scratchData) };
      case 'quit':
        process.exit(0);
      default:
        throw new Error(`no such command: ${JSON.stringify(message.op)}`);
    }
  }

  // Run until the board's USB is up (a few ms of a Pico's time), as a host sees it appear.
  connect(withinMs) {
    if (this.charger) return Object.assign({ now: this.now }, this.happened());
    const deadline = this.now + withinMs * 1e6;
    while (!this.chip.connected && this.now < deadline) this.run(Math.min(deadline, this.now + SLICE_NS));
    if (!this.chip.connected) throw new Error(`the board's USB did not come up within ${withinMs} ms`);
    return Object.assign({ now: this.now }, this.happened());
  }
}

function reply(fd, message) {
  fs.writeSync(fd, JSON.stringify(message) + '\n');
}

const board = new Board(options(process.argv.slice(2)));
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let answer;
  try {
    answer = board.command(JSON.parse(line));
  } catch (error) {
    answer = { error: error.message };
  }
  reply(board.replyFd, answer);
});
lines.on('close', () => process.exit(0));

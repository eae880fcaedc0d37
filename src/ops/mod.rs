//! The generic typed core behind the C shells. Every function takes, first, the name of the C function
//! that called it (used in error messages), then the C arguments unchanged.

pub mod memory;
pub mod order;
pub mod rma;
pub mod setup;
pub mod sync;

/// The element of the `*128` sized RMA routines: 16 bytes, copied as a unit.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct Bits128(pub [u64; 2]);

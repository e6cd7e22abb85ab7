/* m_profile_tdesc.h: a Cortex-M target description's core feature as gdbservers send it (a
 * comment holding a register, single quotes, an explicit regnum), for the RSP tests
 * (test_rsp.c parses it, test_rsp_session.c's fake gdbserver serves it). */
#ifndef RAMPLACE_TEST_M_PROFILE_TDESC_H
#define RAMPLACE_TEST_M_PROFILE_TDESC_H

#define M_PROFILE_CORE_XML \
	"<?xml version=\"1.0\"?>\n<!DOCTYPE feature SYSTEM \"gdb-target.dtd\">\n" \
	"<feature name=\"org.gnu.gdb.arm.m-profile\">\n" \
	"<reg name=\"r0\" bitsize=\"32\"/><reg name=\"r1\" bitsize=\"32\"/><reg name=\"r2\" bitsize=\"32\"/>\n" \
	"<reg name=\"r3\" bitsize=\"32\"/><reg name=\"r4\" bitsize=\"32\"/><reg name=\"r5\" bitsize=\"32\"/>\n" \
	"<reg name=\"r6\" bitsize=\"32\"/><reg name=\"r7\" bitsize=\"32\"/><reg name=\"r8\" bitsize=\"32\"/>\n" \
	"<reg name=\"r9\" bitsize=\"32\"/><reg name=\"r10\" bitsize=\"32\"/><reg name=\"r11\" bitsize=\"32\"/>\n" \
	"<reg name=\"r12\" bitsize=\"32\"/><reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>\n" \
	"<!-- a comment with <reg name=\"fake\" bitsize=\"8\"/> inside -->\n" \
	"<reg name='lr' bitsize='32'/><reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>\n" \
	"<reg name=\"xpsr\" bitsize=\"32\" regnum=\"25\"/>\n</feature>\n"

#endif

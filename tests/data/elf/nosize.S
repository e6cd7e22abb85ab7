/* nosize.S: fixture: a Thumb function without .size (as libgcc's __aeabi_uldivmod is written),
 * which calls b_entry and tail-branches to cold_split. */
	.syntax unified
	.thumb
	.text
	.global nosize_fn
	.type nosize_fn, %function
	.thumb_func
nosize_fn:
	push {r4, lr}
	bl b_entry
	pop {r4, lr}
	b.w cold_split
